// Glossaries and do-not-translate spans on tiny-marian-en-de, through the service and the engine's constrained
// search: term hit rate, placeholder keep rate, identical output without terms, the latency a 1,000-entry glossary
// adds to sentences with no term and with terms, and batch throughput with a term in every sentence. Then the LLM
// translator tiny-qwen3-mt, whose dragoman.json words terminology: its term hit rate with the terms in the prompt
// alone, by constrained decoding alone, and both (the default). Prints a markdown table; not a test.
// Usage: npm run bench:glossary [-- --rounds 3]
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/env.ts';
import { createDetector } from '../src/detect/index.ts';
import { createEngine } from '../src/engine/index.ts';
import { GlossaryBook } from '../src/glossaries/book.ts';
import { SqliteGlossaryStore } from '../src/glossaries/sqlite.ts';
import { openSqlite } from '../src/storage/index.ts';
import { createService, type TranslateOptions } from '../src/service/index.ts';
import { planHtml } from '../src/text/html/index.ts';
import { planText } from '../src/text/segment.ts';
import { FIXTURES, devGlossary, devRows, padGlossary, splitByTerms } from '../test/glossaries/dev-glossary.ts';
import { FIXTURE_MODELS_DIR } from '../test/fixture-models.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(values.rounds);

const engine = await createEngine(loadConfig({ DRAGOMAN_MODELS_DIR: FIXTURES, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1', DRAGOMAN_CACHE_SIZE: '0' }));
const book = new GlossaryBook(new SqliteGlossaryStore(openSqlite(':memory:')), { maxEntries: 10_000, maxTermChars: 200, perKey: 100 });
const service = createService({
  config: { maxStrings: 1000, maxChars: 1_000_000 }, engine, detector: await createDetector({ secondOpinion: false }),
  planners: { text: planText, html: planHtml }, glossaries: book, keepSpans: true,
});
const OWNER = 'bench';

async function translate(q: string[], options: TranslateOptions = {}): Promise<string[]> {
  const r = await service.translate(service.prepareTranslate({ q, source: 'en', target: 'de' }, options));
  return r.translations.map((t) => t.translatedText);
}
// A word: letters, digits, hyphens and apostrophes ("T-Shirt" does not hold the word "Shirt").
const wordCount = (text: string, word: string) => text.split(/[^\p{L}\p{N}'-]+/u).filter((w) => w === word).length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / b).toFixed(1)} %)`;

const rows = devRows();
const entries = devGlossary(rows);
const { withTerms, without } = splitByTerms(rows, entries);
const dev = await book.create(OWNER, 'dev', [{ source: 'en', target: 'de', entries: entries.map((e) => [e.source, e.target]) }]);
const big = await book.create(OWNER, 'big', [{ source: 'en', target: 'de', entries: padGlossary(entries, 1000).map((e) => [e.source, e.target]) }]);
const useDev = { glossary: { owner: OWNER, id: dev.id } };
const useBig = { glossary: { owner: OWNER, id: big.id } };
const table: [string, string][] = [];
console.error(`dev glossary: ${entries.length} entries; ${withTerms.length} dev sentences hold a term, ${without.length} none`);

// 1. Term hit rate: every target term of the sentence as a word of its translation.
const termSrc = withTerms.map((w) => w.row.src);
const constrained = await translate(termSrc, useDev);
const plain = await translate(termSrc);
const hit = (outs: string[]) => withTerms.filter((w, i) => w.targets.every((t) => wordCount(outs[i]!, t) > 0)).length;
table.push(['term hit rate, dev glossary (sentences with every target term)', pct(hit(constrained), withTerms.length)]);
table.push(['same sentences, model alone (no glossary)', pct(hit(plain), withTerms.length)]);

// 2. Placeholder keep rate: each span once, not glued to a word.
const SPANS = ['{{user_name}}', '{0}', '%s', '%(count)d', '${total}', 'https://example.com/a/b?c=1', 'support@example.org'];
const spanRows = rows.slice(0, 210);
const spanSrc = spanRows.map((r, i) => `${r.src.replace(/\.$/, '')} ${SPANS[i % SPANS.length]}.`);
const kept = (outs: string[]) => outs.filter((out, i) => {
  const span = SPANS[i % SPANS.length]!;
  const at = out.indexOf(span);
  return at >= 0 && out.indexOf(span, at + 1) < 0 && !/[\p{L}\p{N}]/u.test(out.charAt(at - 1)) && !/[\p{L}\p{N}]/u.test(out.charAt(at + span.length));
}).length;
table.push(['placeholder / URL / e-mail keep rate (once, not glued)', pct(kept(await translate(spanSrc)), spanSrc.length)]);
table.push(['same, DRAGOMAN_KEEP_SPANS=off (model alone)', pct(kept(await translate(spanSrc, { keepSpans: false })), spanSrc.length)]);

// 3. Identical output without terms.
const noTerm = without.map((r) => r.src);
const same = (a: string[], b: string[]) => a.filter((x, i) => x === b[i]).length;
table.push(['identical output, sentences without a term (dev glossary)', pct(same(await translate(noTerm, useDev), await translate(noTerm)), noTerm.length)]);
const allSrc = rows.map((r) => r.src);
const synthetic = await book.create(OWNER, 'synthetic', [{ source: 'en', target: 'de', entries: padGlossary([], 1000).map((e) => [e.source, e.target]) }]);
table.push(['identical output, all 500 dev sentences, 1,000 entries none of which occur',
  pct(same(await translate(allSrc, { glossary: { owner: OWNER, id: synthetic.id } }), await translate(allSrc)), allSrc.length)]);

// 4. Latency of single-sentence requests, with and without the 1,000-entry glossary, alternated.
async function latency(sentences: string[], options: TranslateOptions): Promise<number> {
  const ms: number[] = [];
  for (const s of sentences) {
    const t0 = performance.now();
    await translate([s], options);
    ms.push(performance.now() - t0);
  }
  return median(ms);
}
for (const [label, set] of [['no term', noTerm.slice(0, 40)], ['with terms', termSrc.slice(0, 40)]] as const) {
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    a.push(await latency(set, {}));
    b.push(await latency(set, useBig));
  }
  const pa = median(a);
  const pb = median(b);
  table.push([`p50 latency, one sentence, ${label}: without / with 1,000-entry glossary`,
    `${pa.toFixed(1)} / ${pb.toFixed(1)} ms (${pb >= pa ? '+' : ''}${((100 * (pb - pa)) / pa).toFixed(1)} %; medians of ${rounds} rounds of ${set.length})`]);
}

// 5. Batch throughput: 128 sentences, each with a term, one request.
const batch = termSrc.slice(0, 128);
for (const [label, options] of [['without glossary', {}], ['with the 1,000-entry glossary', useBig]] as const) {
  const runs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    await translate(batch, options);
    runs.push(performance.now() - t0);
  }
  const ms = median(runs);
  table.push([`batch of ${batch.length} sentences each with a term, ${label}`, `${ms.toFixed(0)} ms (${((1000 * batch.length) / ms).toFixed(1)} sentences/s)`]);
}

await engine.close();

// 6. The LLM translator: the same terms in its prompt, in its decoding, or both; 120 sentences in one request.
const LLM = 'tiny-qwen3-mt';
const llmDir = mkdtempSync(join(tmpdir(), 'dragoman-bench-llm-'));
symlinkSync(join(FIXTURE_MODELS_DIR, LLM), join(llmDir, LLM));
const llmEngine = await createEngine(loadConfig({ DRAGOMAN_MODELS_DIR: llmDir, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1', DRAGOMAN_CACHE_SIZE: '0' }));
const llmService = createService({
  config: { maxStrings: 1000, maxChars: 1_000_000 }, engine: llmEngine, detector: await createDetector({ secondOpinion: false }),
  planners: { text: planText, html: planHtml }, glossaries: book, keepSpans: true,
});
const llmSet = withTerms.slice(0, 120);
const llmHit = (outs: string[]) => llmSet.filter((w, i) => w.targets.every((t) => wordCount(outs[i]!, t) > 0)).length;
const ways: [string, TranslateOptions][] = [
  ['model alone (no glossary)', {}],
  ['terms in the prompt alone', { ...useDev, terms: 'prompt' }],
  ['constrained decoding alone', { ...useDev, terms: 'decoding' }],
  ['prompt + constrained decoding (default)', useDev],
];
for (const [label, options] of ways) {
  const runs: number[] = [];
  let outs: string[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    const res = await llmService.translate(llmService.prepareTranslate({ q: llmSet.map((w) => w.row.src), source: 'en', target: 'de' }, options));
    runs.push(performance.now() - t0);
    outs = res.translations.map((t) => t.translatedText);
  }
  table.push([`${LLM}: term hit rate, ${label}; batch of ${llmSet.length}`, `${pct(llmHit(outs), llmSet.length)}; ${median(runs).toFixed(0)} ms`]);
}
await llmEngine.close();
rmSync(llmDir, { recursive: true, force: true });

console.log(`tiny-marian-en-de and ${LLM} fp32, 1 worker x 1 thread, cache off, ${new Date().toISOString()}\n`);
console.log('| measure | result |\n|---|---|');
for (const [k, v] of table) console.log(`| ${k} | ${v} |`);
