// dragoman models list|pull|pack|import|remove|verify — getting models onto a host (also an air-gapped one) and checking
// them. The logic is src/models/; this file parses arguments and prints.
import { loadConfig, loadHubSettings, type Precision } from '../../config/env.ts';
import { languageByFlores } from '../../languages/catalog.ts';
import { listModels, type ListedModel } from '../../models/list.ts';
import { importPack, packModels } from '../../models/pack.ts';
import { formatBytes, type ProgressSink } from '../../models/progress.ts';
import { pullModel } from '../../models/pull.ts';
import { removeModel } from '../../models/remove.ts';
import { verifyModels } from '../../models/verify.ts';
import { CliError, processIo, table, usageError, type CliIo } from '../io.ts';
import { groupHelp, helpOrUnknown, misuse, parse, syntax } from '../syntax.ts';

export const summary = 'install and check models: list, pull, pack, import, remove, verify';

const DIR_NOTE = 'Models live in DRAGOMAN_MODELS_DIR (default ./models).';

const LIST = syntax({
  command: 'models list',
  about: 'The installed models: name, family, languages, precision, size on disk and status ok / incomplete / corrupt\n' +
    '(exit code 1 when one is not ok).',
  flags: { json: { type: 'boolean', about: 'print the models as JSON' } },
  notes: [DIR_NOTE],
});

const PULL = syntax({
  command: 'models pull',
  args: 'REPO|PRESET',
  about: 'Download a model from the Hugging Face hub (connected machines only) into DRAGOMAN_MODELS_DIR, checking every file.',
  flags: {
    revision: { type: 'string', value: 'R', about: 'branch, tag or commit (default: main)' },
    precision: { type: 'string', value: 'auto|int4|int8|fp32', about: 'which graphs (default: DRAGOMAN_PRECISION, auto: the smallest a model has)' },
    name: { type: 'string', value: 'N', about: "the model's folder name (default: the repository's name)" },
    force: { type: 'boolean', about: 'replace an installed model of the same name' },
  },
  notes: [
    'presets: opus-mt-xx-yy (Xenova/opus-mt-xx-yy), nllb (Xenova/nllb-200-distilled-600M), m2m100 (Xenova/m2m100_418M), ' +
    'mbart50 (Xenova/mbart-large-50-many-to-many-mmt); LLM translators: hy-mt2, translategemma, qwen3, gemma3, llama3.2',
    `${DIR_NOTE} Downloads come from HF_ENDPOINT (default https://huggingface.co), with HF_TOKEN when set.`,
  ],
});

const PACK = syntax({
  command: 'models pack',
  args: 'NAME...',
  about: 'Write installed models and a manifest of their files (size, sha256) to one archive, for "models import" elsewhere.',
  flags: { output: { type: 'string', short: 'o', value: 'FILE.tar', required: true, about: 'the archive to write' } },
  notes: [DIR_NOTE],
});

const IMPORT = syntax({
  command: 'models import',
  args: 'FILE.tar',
  about: 'Check every file of an archive made by "models pack", then install its models; a damaged archive installs nothing.',
  flags: { force: { type: 'boolean', about: 'replace installed models of the same name (default: refuse)' } },
  notes: [`${DIR_NOTE} A running server serves the new models within seconds, without a restart.`],
});

const REMOVE = syntax({
  command: 'models remove',
  args: 'NAME',
  about: 'Delete an installed model. A running server stops routing to it within seconds; requests it is translating finish.',
  flags: {},
  notes: [DIR_NOTE],
});

const VERIFY = syntax({
  command: 'models verify',
  args: '[NAME...]',
  about: 'Re-hash installed models (default: all of them) against their dragoman-manifest.json (exit code 1 on a mismatch).',
  flags: {},
  notes: [DIR_NOTE],
});

const HELP = groupHelp('models', [LIST, PULL, PACK, IMPORT, REMOVE, VERIFY], [
  'presets: opus-mt-xx-yy (Xenova/opus-mt-xx-yy), nllb (Xenova/nllb-200-distilled-600M), m2m100 (Xenova/m2m100_418M), ' +
    'mbart50 (Xenova/mbart-large-50-many-to-many-mmt); LLM translators: hy-mt2, translategemma, qwen3, gemma3, llama3.2',
  'models live in DRAGOMAN_MODELS_DIR; pull reads HF_ENDPOINT and HF_TOKEN',
]);

/** Progress goes to the real stderr (a TTY gets a redrawn bar); a test's io gets plain lines. */
function progressSink(io: CliIo): ProgressSink {
  if (io === processIo) return process.stderr;
  let pending = '';
  return {
    write(text: string) {
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      lines.forEach((l) => io.err(l));
    },
  };
}

function precisionOf(value: string | undefined, fallback: Precision): Precision {
  if (value === undefined) return fallback;
  const known = ['auto', 'int4', 'int8', 'fp32'] as const;
  if (!(known as readonly string[]).includes(value)) throw usageError(`--precision must be ${known.join(', ')}, got "${value}"`);
  return value as Precision;
}

function publicCode(flores: string): string {
  return languageByFlores(flores)?.code ?? flores;
}

/**
 * `en → de`, `en → cs,de,fr`, `204 languages → en` (multi-source), `100 languages` (many-to-many), `en → de, de → en`
 * (an LLM translator's declared pairs).
 */
function languagesColumn(m: ListedModel): string {
  if (m.sources.length === 0) return '-';
  const side = (codes: string[]) => (codes.length > 8 ? `${codes.length} languages` : codes.map(publicCode).join(','));
  if (m.pairs) return m.pairs.length > 4 ? `${m.pairs.length} pairs` : m.pairs.map(([s, t]) => `${publicCode(s)} → ${publicCode(t)}`).join(', ');
  if (m.family !== 'marian') return `${new Set([...m.sources, ...m.targets]).size} languages`;
  return `${side(m.sources)} → ${side(m.targets)}`;
}

/** Errors of src/models are meant for people: print them as they are, without a stack. */
async function friendly<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError((e as Error).message);
  }
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const { values } = parse(LIST, rest);
      const config = loadConfig(io.env);
      const models = await friendly(() => listModels(config.modelsDir, config.precision));
      if (values.json) {
        io.out(JSON.stringify(models));
        return 0;
      }
      if (models.length === 0) {
        io.out(`No models in ${config.modelsDir}. Install one with "dragoman models pull opus-mt-en-de" or "dragoman models import FILE.tar".`);
        return 0;
      }
      const rows = [['NAME', 'FAMILY', 'LANGUAGES', 'PRECISION', 'SIZE', 'STATUS']];
      for (const m of models) {
        rows.push([m.name, m.family ?? '?', languagesColumn(m), m.precision ?? '-', formatBytes(m.diskBytes), m.status]);
      }
      table(rows).forEach((l) => io.out(l));
      for (const m of models) if (m.problem) io.out(`  ${m.name}: ${m.problem}`);
      return models.every((m) => m.status === 'ok') ? 0 : 1;
    }
    case 'pull': {
      const { values, positionals } = parse(PULL, rest);
      if (positionals.length !== 1) throw misuse(PULL, 'expected one REPO or preset');
      const config = loadConfig(io.env);
      await friendly(() =>
        pullModel({
          modelsDir: config.modelsDir,
          spec: positionals[0]!,
          revision: values.revision,
          precision: precisionOf(values.precision, config.precision),
          name: values.name,
          force: values.force,
          hub: loadHubSettings(io.env),
          log: progressSink(io),
        }),
      );
      return 0;
    }
    case 'pack': {
      const { values, positionals } = parse(PACK, rest);
      if (!values.output) throw misuse(PACK, 'give the archive to write with -o FILE.tar');
      if (positionals.length === 0) throw misuse(PACK, 'name at least one installed model');
      const config = loadConfig(io.env);
      const packed = await friendly(() =>
        packModels({ modelsDir: config.modelsDir, names: positionals, output: values.output!, log: progressSink(io) }),
      );
      io.out(`Wrote ${values.output} (${formatBytes(packed.bytes)}): ${packed.models.join(', ')}`);
      return 0;
    }
    case 'import': {
      const { values, positionals } = parse(IMPORT, rest);
      if (positionals.length !== 1) throw misuse(IMPORT, 'expected one FILE.tar');
      const config = loadConfig(io.env);
      const done = await friendly(() =>
        importPack({ modelsDir: config.modelsDir, file: positionals[0]!, force: values.force, log: progressSink(io) }),
      );
      io.out(`Imported ${done.models.join(', ')} into ${config.modelsDir}; a running server serves them within seconds`);
      return 0;
    }
    case 'remove': {
      const { positionals } = parse(REMOVE, rest);
      if (positionals.length !== 1) throw misuse(REMOVE, 'expected one NAME');
      const config = loadConfig(io.env);
      await friendly(() => removeModel(config.modelsDir, positionals[0]!));
      io.out(`Removed ${positionals[0]} from ${config.modelsDir}; a running server stops serving it within seconds`);
      return 0;
    }
    case 'verify': {
      const { positionals } = parse(VERIFY, rest);
      const config = loadConfig(io.env);
      const results = await friendly(() => verifyModels(config.modelsDir, positionals));
      if (results.length === 0) {
        io.out(`No models in ${config.modelsDir}.`);
        return 0;
      }
      let bad = false;
      for (const r of results) {
        if (r.status === 'no-manifest') {
          io.out(`${r.name}: no manifest (installed by hand), nothing to check against`);
          continue;
        }
        io.out(`${r.name}: ${r.status}${r.status === 'ok' ? ` (${r.files} files)` : ''}`);
        for (const p of r.problems) io.out(`  ${p.path}: ${p.detail}`);
        bad ||= r.status !== 'ok';
      }
      return bad ? 1 : 0;
    }
    default:
      return helpOrUnknown(io, 'models', sub, HELP);
  }
}
