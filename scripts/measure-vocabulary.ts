// node --import tsx scripts/measure-vocabulary.ts [--model DIR] [--sentences N] [--precision fp32|int8] [--beam N]
//
// Exactness of DRAGOMAN_VOCABULARY=target against full on one NLLB / M2M-100 folder (default: the tiny-nllb fixture):
// the folder's dev.jsonl rows, then FLORES sentences (../shared/lid/dev, English, the first N lines) into 24 target
// languages of 14 scripts. Per language: rows, rows equal, the subset's size (its script rows without the sources'),
// and rows whose full-vocabulary output holds a piece outside the subset (those cannot be equal). Every row that
// differs is listed below the table.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { loadConfig } from '../src/config/env.ts';
import { createEngine } from '../src/engine/index.ts';
import { scanFolders } from '../src/engine/model/registry.ts';
import { ModelTokenizer } from '../src/engine/model/tokenizer.ts';
import { classifyPieces, outputIds, targetScripts } from '../src/engine/model/output-vocabulary.ts';
import { ROOT } from './bench-model-folder.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const modelDir = resolve(flag('--model') ?? join(ROOT, 'test/fixtures/models/tiny-nllb'));
const sentences = Number(flag('--sentences') ?? 50);
const precision = flag('--precision') ?? 'fp32';
const beam = flag('--beam') ?? '1';
const FLORES = join(ROOT, '..', 'shared', 'lid', 'dev');
/** Target languages: Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Bengali, Tamil, Thai, Georgian, Ethiopic, Japanese, Korean, Chinese. */
const TARGETS = [
  'deu_Latn', 'fra_Latn', 'ces_Latn', 'spa_Latn', 'ita_Latn', 'pol_Latn', 'tur_Latn', 'vie_Latn', 'swh_Latn', 'fin_Latn',
  'rus_Cyrl', 'ukr_Cyrl', 'ell_Grek', 'arb_Arab', 'pes_Arab', 'heb_Hebr', 'hin_Deva', 'ben_Beng', 'tam_Taml', 'tha_Thai',
  'kat_Geor', 'amh_Ethi', 'jpn_Jpan', 'kor_Hang', 'zho_Hans',
];

interface Row { src: string; src_lang: string; tgt_lang: string; set: string }
const rows: Row[] = [];
const dev = join(modelDir, 'dev.jsonl');
if (existsSync(dev)) {
  for (const l of readFileSync(dev, 'utf8').trim().split('\n')) {
    const r = JSON.parse(l) as Row;
    rows.push({ src: r.src, src_lang: r.src_lang, tgt_lang: r.tgt_lang, set: 'dev.jsonl' });
  }
}
const english = readFileSync(join(FLORES, 'eng_Latn.txt'), 'utf8').trim().split('\n').slice(0, sentences);
for (const t of TARGETS) for (const src of english) rows.push({ src, src_lang: 'eng_Latn', tgt_lang: t, set: 'FLORES' });

const work = mkdtempSync(join(tmpdir(), 'dragoman-vocabulary-'));
const name = basename(modelDir);
mkdirSync(join(work, 'models', name), { recursive: true });
for (const f of readdirSync(modelDir)) symlinkSync(join(modelDir, f), join(work, 'models', name, f));

const outputs: Record<string, string[]> = {};
try {
  for (const vocabulary of ['full', 'target']) {
    const engine = await createEngine(loadConfig({
      DRAGOMAN_MODELS_DIR: join(work, 'models'), DRAGOMAN_DATA_DIR: join(work, 'data'), DRAGOMAN_PRECISION: precision, DRAGOMAN_BEAM: beam,
      DRAGOMAN_VOCABULARY: vocabulary, DRAGOMAN_CACHE_SIZE: '0',
    }));
    const out: string[] = [];
    const groups = new Map<string, number[]>();
    rows.forEach((r, i) => groups.set(`${r.src_lang}>${r.tgt_lang}`, [...(groups.get(`${r.src_lang}>${r.tgt_lang}`) ?? []), i]));
    for (const [pair, idx] of groups) {
      const [s, t] = pair.split('>') as [string, string];
      const r = await engine.translate(idx.map((i) => rows[i]!.src), s, t);
      idx.forEach((i, j) => (out[i] = r.translations[j]!));
    }
    outputs[vocabulary] = out;
    await engine.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

// The subset's size per language, and whether a full-vocabulary output could be written from the subset at all.
const [folder] = await scanFolders(join(modelDir, '..'), precision as 'fp32').then((fs) => fs.filter((f) => f.info.path === modelDir));
const tokenizer = await ModelTokenizer.load(modelDir);
const languageTokens = folder!.languageTokens!;
const targets = targetScripts(languageTokens, (t) => tokenizer.tokenId(t));
const vocab = classifyPieces(tokenizer.pieces(), folder!.runtime!.rules.vocabSize, tokenizer.addedIds(), targets);
const subsetOf = (row: Row) => {
  const source = tokenizer.encode(row.src, tokenizer.tokenId(languageTokens[row.src_lang]!));
  return new Set(outputIds(vocab, [tokenizer.tokenId(languageTokens[row.tgt_lang]!)], source, 1) ?? []);
};

const table = new Map<string, { rows: number; equal: number; outside: number; k: number }>();
const differences: string[] = [];
rows.forEach((r, i) => {
  const key = `${r.set} ${r.src_lang}>${r.tgt_lang}`;
  const t = table.get(key) ?? { rows: 0, equal: 0, outside: 0, k: outputIds(vocab, [tokenizer.tokenId(languageTokens[r.tgt_lang]!)], [], 1)?.length ?? vocab.size };
  t.rows++;
  const full = outputs.full![i]!;
  const target = outputs.target![i]!;
  const subset = subsetOf(r);
  const outside = tokenizer.textIds(full).some((id) => !subset.has(BigInt(id)));
  if (outside) t.outside++;
  if (full === target) t.equal++;
  else differences.push(`${key} #${i}${outside ? ' (full output has pieces outside the subset)' : ''}: ${JSON.stringify(r.src)}\n    full:   ${JSON.stringify(full)}\n    target: ${JSON.stringify(target)}`);
  table.set(key, t);
});

console.log(`${name}, ${precision}, beam ${beam}, vocabulary ${vocab.size}`);
console.log('| rows | target language | subset (ids) | rows | equal | full output outside the subset |');
console.log('|---|---|---:|---:|---:|---:|');
let all = 0;
let equal = 0;
for (const [key, t] of table) {
  const [set, pair] = key.split(' ');
  console.log(`| ${set} | ${pair!.split('>')[1]}${set === 'dev.jsonl' ? ` (from ${pair!.split('>')[0]})` : ''} | ${t.k} | ${t.rows} | ${t.equal} (${(100 * t.equal / t.rows).toFixed(1)} %) | ${t.outside} |`);
  all += t.rows;
  equal += t.equal;
}
console.log(`\nall rows: ${equal} of ${all} equal (${(100 * equal / all).toFixed(2)} %)`);
console.log(`\n${differences.length} differences:`);
for (const d of differences) console.log(d);
