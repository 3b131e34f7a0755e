// dragoman translate FILE... --to de [--from en] [-o OUT | --out-dir DIR]: documents translated on this machine
// with the installed models, no server; plain text from standard input to standard output when no FILE (or -).
import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Config } from '../../config/env.ts';
import type { MemoryBook } from '../../memories/index.ts';
import { commandConfig } from '../command-config.ts';
import { CliError, printable, usageError, type CliIo } from '../io.ts';
import { memoryNamed, withMemories } from '../memories-context.ts';
import { ProgressBar } from '../progress.ts';
import { misuse, parse, syntax } from '../syntax.ts';

export const summary = 'translate files (or standard input) with the installed models, without a server';

const TRANSLATE = syntax({
  command: 'translate',
  args: '[FILE...]',
  about: 'Translate documents locally with the models in DRAGOMAN_MODELS_DIR: each FILE is written beside it as\n' +
    'NAME.<target>.EXT (or to -o / --out-dir). Without FILE (or with -), plain text is read from standard input\n' +
    'and written to standard output.',
  flags: {
    to: { type: 'string', value: 'LANG', required: true, about: 'target language code, e.g. de' },
    from: { type: 'string', value: 'LANG', about: 'source language code (default: detected from the text)' },
    output: { type: 'string', short: 'o', value: 'OUT', about: 'where to write the result (one FILE only)' },
    'out-dir': { type: 'string', value: 'DIR', about: 'folder to write the results to' },
    glossary: { type: 'string', value: 'FILE', about: 'terms to hold: source<TAB>target lines (.tsv) or DeepL CSV (.csv); needs --from' },
    memory: { type: 'string', value: 'MEMORY', about: "a translation memory of --key (ID or name); its exact sentences are used as stored (text on standard input, or files as /v1/documents translates them)" },
    'memory-threshold': { type: 'string', value: 'N', about: 'with --memory: least similarity (0-100) of a fuzzy match reported (standard error; XLIFF files carry them) (default 75)' },
    key: { type: 'string', value: 'ID', about: 'with --memory: the key whose memory it is (IDs: "dragoman keys list")' },
  },
  notes: ['Formats: those of POST /v1/documents (docs/documents.md). Limits: the DRAGOMAN_MAX_DOCUMENT_* settings.'],
});

/** The flags the file path reads. */
interface TranslateValues {
  to?: string;
  from?: string;
  output?: string;
  'out-dir'?: string;
  glossary?: string;
}

export async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(TRANSLATE, args);
  if (!values.to) throw misuse(TRANSLATE, '--to is required: the target language code, e.g. --to de');
  if (values.output && values['out-dir']) throw misuse(TRANSLATE, '-o and --out-dir exclude each other');
  const files = positionals.filter((p) => p !== '-');
  const fromStdin = positionals.length === 0 || positionals.includes('-');
  if (fromStdin && files.length > 0) throw misuse(TRANSLATE, 'standard input (-) cannot be mixed with files');
  if (values.output && files.length > 1) throw misuse(TRANSLATE, '-o names one result: use --out-dir for several files');
  if (values.glossary && !values.from) throw misuse(TRANSLATE, '--glossary needs --from: a glossary holds the terms of one language pair');
  if (values.memory && !values.key) throw misuse(TRANSLATE, '--memory needs --key: memories belong to a key (dragoman memories list --key ID)');
  if (values.memory && values.glossary) throw misuse(TRANSLATE, '--memory and --glossary exclude each other here');
  if (!values.memory && (values.key || values['memory-threshold'] !== undefined)) throw misuse(TRANSLATE, '--key and --memory-threshold go with --memory');
  const threshold = values['memory-threshold'] === undefined ? undefined : Number(values['memory-threshold']);
  if (threshold !== undefined && !(/^\d+$/.test(values['memory-threshold']!) && threshold <= 100)) {
    throw usageError(`--memory-threshold must be an integer from 0 to 100, got "${values['memory-threshold']}"`);
  }
  if (values['out-dir'] && !(await stat(values['out-dir']).then((s) => s.isDirectory(), () => false))) {
    throw usageError(`--out-dir ${values['out-dir']} is not a folder`);
  }
  if (values.memory && files.length === 0) return translateWithMemory(io, { to: values.to, from: values.from, memory: values.memory, key: values.key!, threshold });
  // Files with a memory: the key's memory book on the same database, as a document job of that key uses it.
  if (values.memory) {
    const ref = values.memory;
    return withMemories(io, values.key!, async (ctx) => {
      const m = await memoryNamed(ctx.book, ctx.owner, ref);
      return translateFiles(io, values, files, fromStdin, ctx.config, { book: ctx.book, use: { owner: ctx.owner, id: m.id, threshold } });
    });
  }
  return translateFiles(io, values, files, fromStdin, commandConfig(io));
}

/**
 * Files (or standard input taken as a text document) through the server's document pipeline: the same checks,
 * planning, service and writers as /v1/documents; with `memory`, the key's memory as a document job uses it.
 */
async function translateFiles(
  io: CliIo,
  values: TranslateValues,
  files: string[],
  fromStdin: boolean,
  config: Config,
  memory?: { book: MemoryBook; use: { owner: string; id: string; threshold: number | undefined } },
): Promise<number> {
  // Loaded here: the engine takes seconds to import, which --help or a bad argument need not wait for.
  const { createEngine } = await import('../../engine/index.ts');
  const { createDetector } = await import('../../detect/index.ts');
  const { serviceFromConfig } = await import('../../service/index.ts');
  const { planHtml } = await import('../../text/html/index.ts');
  const { planText } = await import('../../text/segment.ts');
  const { checkDocument, limitsOf } = await import('../../documents/accept.ts');
  const { translateUnits, untranslated } = await import('../../documents/units.ts');
  const { DocumentWorkers } = await import('../../documents/worker/pool.ts');
  const { resultName } = await import('../../documents/jobs.ts');
  const { ApiError } = await import('../../errors/api-error.ts');
  const { glossaryBook, parseEntries } = await import('../../glossaries/index.ts');
  const { MemoryGlossaryStore } = await import('../../glossaries/memory.ts');

  // The detector's models are read on this thread while the engine's worker loads the translation models.
  const detecting = createDetector({ secondOpinion: config.detectSecondOpinion });
  detecting.catch(() => undefined); // awaited below; a failure is not left unhandled if the engine fails first
  const engine = await createEngine(config);
  const workers = new DocumentWorkers(config);
  try {
    if (!engine.models().some((m) => m.status === 'ok')) {
      throw new CliError(`no model is installed in ${config.modelsDir}: install one with \`dragoman models pull\``);
    }
    const detector = await detecting;
    // A glossary file goes through the server's glossary book (its checks, its term matching), kept in memory.
    const book = glossaryBook(new MemoryGlossaryStore(), config);
    let glossary: { owner: string; id: string } | undefined;
    if (values.glossary) {
      const file = values.glossary;
      const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new CliError(`--glossary ${file}: cannot read it (${err.code ?? err.message})`);
      });
      try {
        const entries = parseEntries(text, /\.csv$/i.test(file) ? 'csv' : 'tsv', book.limits, basename(file));
        glossary = { owner: 'cli', id: (await book.create('cli', basename(file), [{ source: values.from, target: values.to, entries }])).id };
      } catch (err) {
        throw err instanceof ApiError ? new CliError(`--glossary ${file}: ${err.message}`) : err;
      }
    }
    const service = serviceFromConfig({ config, engine, detector, planners: { text: planText, html: planHtml }, glossaries: book, ...(memory ? { memories: memory.book } : {}) });
    const translate = async (bytes: Uint8Array, name: string, bar: ProgressBar | undefined) => {
      const memoryRef = memory && { owner: memory.use.owner, id: memory.use.id };
      const checked = await checkDocument(service, workers, { bytes, filename: name, target: values.to, source: values.from, glossary, memory: memoryRef }, config).catch((err: unknown) => {
        throw err instanceof ApiError ? new CliError(`${name}: ${err.message}`) : err;
      });
      const { planned, source, target } = checked;
      const translations = !source || checked.characters === 0
        ? untranslated(planned.segments)
        : await translateUnits(service, planned.segments, source, target, (done, total) => bar?.update(done, total), undefined, {
            ...(glossary ? { glossary } : {}),
            ...(config.documentContextChars > 0 ? { documentContext: { chars: config.documentContextChars } } : {}),
            // Fuzzy matches are looked up only for the formats that carry them (XLIFF), as for a document job.
            ...(memory ? { memory: { ...memory.use, matches: planned.format === 'xliff' } } : {}),
          });
      const out = await workers.write(bytes, planned.format, limitsOf(config), translations, target.code).catch((err: unknown) => {
        throw err instanceof ApiError ? new CliError(`${name}: ${err.message}`) : err;
      });
      return { bytes: out, checked };
    };

    if (fromStdin) {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      const { bytes } = await translate(Buffer.concat(chunks), 'stdin.txt', undefined);
      process.stdout.write(bytes);
      return 0;
    }
    let failed = 0;
    for (const file of files) {
      const bar = new ProgressBar({ isTTY: process.stderr.isTTY === true, columns: process.stderr.columns, write: (s) => process.stderr.write(s) }, basename(file));
      try {
        const bytes = await readFile(file).catch((err: NodeJS.ErrnoException) => {
          throw new CliError(`${file}: cannot read it (${err.code ?? err.message})`);
        });
        const { bytes: out, checked } = await translate(bytes, basename(file), bar);
        const name = resultName(basename(file), checked.target.code, checked.format.extension);
        const to = values.output ?? join(values['out-dir'] ?? dirname(file), name);
        await writeFile(to, out);
        bar.finish(`${file} → ${to} (${checked.format.id}, ${checked.planned.segments.counts.length} segments, ${checked.characters} characters, ${bar.seconds.toFixed(1)} s)`);
      } catch (err) {
        if (!(err instanceof CliError)) throw err;
        bar.finish(`dragoman: ${err.message}`);
        failed++;
      }
    }
    return failed > 0 ? 1 : 0;
  } finally {
    await workers.close();
    await engine.close();
  }
}

/**
 * Standard input translated as /v1/translate translates text with a memory of the key: the memory's exact sentences
 * as stored, the others by the model; what the memory did (and its fuzzy matches) goes to standard error.
 */
async function translateWithMemory(io: CliIo, o: { to: string; from: string | undefined; memory: string; key: string; threshold: number | undefined }): Promise<number> {
  return withMemories(io, o.key, async ({ book, owner, config, accounts }) => {
    const m = await memoryNamed(book, owner, o.memory);
    const { createEngine } = await import('../../engine/index.ts');
    const { createDetector } = await import('../../detect/index.ts');
    const { serviceFromConfig } = await import('../../service/index.ts');
    const { planHtml } = await import('../../text/html/index.ts');
    const { planText } = await import('../../text/segment.ts');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const detecting = createDetector({ secondOpinion: config.detectSecondOpinion });
    detecting.catch(() => undefined);
    const engine = await createEngine(config);
    try {
      if (!engine.models().some((x) => x.status === 'ok')) {
        throw new CliError(`no model is installed in ${config.modelsDir}: install one with \`dragoman models pull\``);
      }
      const detector = await detecting;
      const service = serviceFromConfig({ config, engine, detector, planners: { text: planText, html: planHtml }, memories: book, now: () => accounts.clock.now() });
      const use = { owner, id: m.id, matches: true, ...(o.threshold !== undefined ? { threshold: o.threshold } : {}) };
      const req = service.prepareTranslate({ q: text, target: o.to, source: o.from ?? m.source, format: 'text' }, { memory: use });
      const [t] = (await service.translate(req)).translations;
      process.stdout.write(t!.translatedText);
      const outcome = t!.memory;
      if (outcome) {
        io.err(`memory "${printable(m.name)}": ${outcome.exact} of ${outcome.segments} sentences as stored (${outcome.chars} characters)`);
        for (const x of outcome.matches.filter((x) => x.similarity < 100)) {
          io.err(`  ${x.similarity}%  ${printable(x.segment)}  ~  ${printable(x.source)}  →  ${printable(x.target)}`);
        }
      }
      return 0;
    } finally {
      await engine.close();
    }
  });
}
