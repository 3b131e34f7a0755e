// Translation memories at scale, SQLite and PostgreSQL side by side: a generated TMX of 1,000,000 units (streamed to
// disk) imported through the memory book (time, and resident memory growth sampled during the import), exact and
// fuzzy lookups of one sentence (p50/p99), the cost a memory without a hit adds to translating text on
// tiny-marian-en-de, and a 640-paragraph document fully in a memory against the same document by the model, on a
// real server (upload to done). Prints one markdown table; not a test. PostgreSQL: DRAGOMAN_TEST_DATABASE_URL, or a
// throwaway cluster of scripts/pg-test-cluster.sh. Usage:
//   npm run bench:memory [-- --units 1000000 --lookups 2000 --rounds 3 --paragraphs 640 --document-rounds 1]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/env.ts';
import { createDetector } from '../src/detect/index.ts';
import { createEngine } from '../src/engine/index.ts';
import { memoryBook, memoryStore, type Memory, type MemoryBook } from '../src/memories/index.ts';
import { createService, type Service } from '../src/service/index.ts';
import { openStorage, type Storage } from '../src/storage/index.ts';
import { planHtml } from '../src/text/html/index.ts';
import { planText } from '../src/text/segment.ts';
import { startCompatServer } from '../test/google/harness.ts';
import { devRows, FIXTURES } from '../test/glossaries/dev-glossary.ts';
import { generated, tmx, writeGeneratedTmx } from '../test/memories/fixtures.ts';
import { freshDatabase, startOwnCluster, TEST_DATABASE_URL } from '../test/postgres/pg-helpers.ts';

const { values } = parseArgs({ options: { units: { type: 'string', default: '1000000' }, lookups: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' }, paragraphs: { type: 'string', default: '640' }, 'document-rounds': { type: 'string', default: '1' } } });
const UNITS = Number(values.units);
const LOOKUPS = Number(values.lookups);
const ROUNDS = Number(values.rounds);
const PARAGRAPHS = Number(values.paragraphs);
const DOCUMENT_ROUNDS = Number(values['document-rounds']);
const OWNER = 'bench';

const dir = mkdtempSync(join(tmpdir(), 'dragoman-bench-memory-'));
const tmxFile = join(dir, 'generated.tmx');
let t = performance.now();
await writeGeneratedTmx(tmxFile, UNITS);
console.error(`TMX of ${UNITS} units: ${(statSync(tmxFile).size / 1e6).toFixed(0)} MB written in ${((performance.now() - t) / 1000).toFixed(1)} s`);

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const ms = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)} ms`;
const gc = () => (globalThis as { gc?: () => void }).gc?.();
/** Random ints, the same for both backends. */
const picks = (n: number, seed: number) => Array.from({ length: n }, (_, i) => ((i + 1) * 2_654_435_761 + seed) % UNITS);

/** A generated source with one word changed: a fuzzy pair (similarity 94 on its 17 tokens) that is not an exact one. */
const near = (i: number) => generated(i).source.replace(' was sent to ', ' was mailed to ');

interface Result {
  importS: number;
  rssMb: number;
  exact: number[];
  roundTrip: number[];
  fuzzy: number[];
  fuzzyFound: number;
  memory: Memory;
  book: MemoryBook;
}

async function measure(storage: Storage): Promise<Result> {
  const book = memoryBook(memoryStore(storage), { memoriesPerKey: 10, memoryMaxSegments: 2_000_000, memoryMaxSegmentChars: 5000, memoryMaxFileBytes: 1 << 30 });
  const { createReadStream } = await import('node:fs');
  gc();
  const rss0 = process.memoryUsage.rss();
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  t = performance.now();
  const r = await book.import(OWNER, { format: 'tmx', name: 'generated' }, createReadStream(tmxFile));
  const importS = (performance.now() - t) / 1000;
  clearInterval(sampler);
  if (r.memory.segmentCount !== UNITS) throw new Error(`imported ${r.memory.segmentCount} segments, not ${UNITS}`);
  // The import's garbage collected before the lookups are timed: its collection is the import's cost, not theirs.
  gc();
  const exact: number[] = [];
  for (const i of picks(LOOKUPS, 7)) {
    const s = performance.now();
    const [hit] = await book.lookup(r.memory, 'de', [generated(i).source], { threshold: 75, fuzzy: false });
    exact.push(performance.now() - s);
    if (hit?.exact?.target !== generated(i).target) throw new Error(`exact lookup of unit ${i} missed`);
  }
  // PostgreSQL: a statement that does nothing, for the round trip's own share of a lookup's time.
  const roundTrip: number[] = [];
  if (storage.kind === 'postgres') {
    for (let k = 0; k < LOOKUPS; k++) {
      const s = performance.now();
      await storage.pool.query('SELECT 1');
      roundTrip.push(performance.now() - s);
    }
  }
  const fuzzy: number[] = [];
  let fuzzyFound = 0;
  for (const i of picks(Math.min(LOOKUPS, 1000), 11)) {
    const s = performance.now();
    const matches = await book.fuzzy(r.memory, 'de', near(i), 75);
    fuzzy.push(performance.now() - s);
    if (matches[0]?.source === generated(i).source) fuzzyFound++;
  }
  return { importS, rssMb: (peak - rss0) / 1e6, exact, roundTrip, fuzzy, fuzzyFound, memory: r.memory, book };
}

/** Time of translating `sentences` one request each, without a memory and with one that holds none of them, interleaved. */
async function overhead(service: Service, memory: Memory, sentences: string[]): Promise<{ without: number; with: number }> {
  const run = async (useMemory: boolean) => {
    const s = performance.now();
    for (const q of sentences) {
      await service.translate(service.prepareTranslate({ q, source: 'en', target: 'de' }, useMemory ? { memory: { owner: OWNER, id: memory.id } } : {}));
    }
    return performance.now() - s;
  };
  await run(false);
  await run(true); // warm both paths
  const without: number[] = [];
  const withMemory: number[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    without.push(await run(false));
    withMemory.push(await run(true));
  }
  return { without: quantile(without, 0.5), with: quantile(withMemory, 0.5) };
}

/** Upload to done of one document on a running server, polled every 10 ms; answers the time and the result. */
async function documentJob(url: string, secret: string, text: string, fields: Record<string, string>): Promise<{ ms: number; text: string }> {
  const s = performance.now();
  const form = new FormData();
  form.set('file', new Blob([Buffer.from(text)]), 'paragraphs.txt');
  for (const [k, v] of Object.entries({ source: 'en', target: 'de', ...fields })) form.set(k, v);
  const up = await fetch(`${url}/v1/documents`, { method: 'POST', body: form, headers: { 'x-api-key': secret } });
  const id = ((await up.json()) as { data: { document: { id: string } } }).data.document.id;
  for (;;) {
    const doc = ((await (await fetch(`${url}/v1/documents/${id}`, { headers: { 'x-api-key': secret } })).json()) as { data: { document: { status: string; error?: unknown } } }).data.document;
    if (doc.status === 'error') throw new Error(`document job failed: ${JSON.stringify(doc.error)}`);
    if (doc.status === 'done') break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const ms = performance.now() - s;
  return { ms, text: await (await fetch(`${url}/v1/documents/${id}/result`, { headers: { 'x-api-key': secret } })).text() };
}

/**
 * A document of PARAGRAPHS paragraphs (generated sentences, each one unit of a memory imported through /v1/memories),
 * translated with the memory and without (by the model, translation cache off), interleaved: medians of DOCUMENT_ROUNDS.
 */
async function documentRow(databaseUrl: string | undefined): Promise<{ memory: number; model: number }> {
  const server = await startCompatServer({ DRAGOMAN_CACHE_SIZE: '0', ...(databaseUrl ? { DRAGOMAN_DATABASE_URL: databaseUrl } : {}) });
  try {
    const key = await server.key({ rpm: null });
    const units = Array.from({ length: PARAGRAPHS }, (_, i) => generated(UNITS + i));
    const r = await fetch(`${server.url}/v1/memories?name=Paragraphs`, { method: 'POST', headers: { 'x-api-key': key.secret, 'content-type': 'application/x-tmx+xml' }, body: tmx(units, 'en', 'de') });
    if (r.status !== 201) throw new Error(`memory import: ${r.status} ${await r.text()}`);
    const memory = ((await r.json()) as { data: { memory: { id: string } } }).data.memory.id;
    const text = units.map((u) => u.source).join('\n\n');
    const memoryMs: number[] = [];
    const modelMs: number[] = [];
    await documentJob(server.url, key.secret, text, {}); // warm the model's path
    for (let k = 0; k < DOCUMENT_ROUNDS; k++) {
      const fromMemory = await documentJob(server.url, key.secret, text, { memory });
      if (!units.every((u) => fromMemory.text.includes(u.target))) throw new Error('the document did not come back from the memory');
      memoryMs.push(fromMemory.ms);
      modelMs.push((await documentJob(server.url, key.secret, text, {})).ms);
    }
    return { memory: quantile(memoryMs, 0.5), model: quantile(modelMs, 0.5) };
  } finally {
    await server.close();
  }
}

const results: Record<string, Result & { overhead?: { without: number; with: number }; document?: { memory: number; model: number }; load?: number[] }> = {};
const engine = await createEngine(loadConfig({ DRAGOMAN_MODELS_DIR: FIXTURES, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1', DRAGOMAN_CACHE_SIZE: '0' }));
const detector = await createDetector({ secondOpinion: false });
const sentences = devRows().slice(0, 40).map((r) => r.src);

const cluster = TEST_DATABASE_URL ? undefined : startOwnCluster();
const db = await freshDatabase(TEST_DATABASE_URL ?? cluster!.url);
try {
  for (const [name, config] of [['SQLite', { dataDir: join(dir, 'data'), databaseUrl: undefined }], ['PostgreSQL', { dataDir: dir, databaseUrl: db.url }]] as const) {
    const storage = await openStorage(config);
    try {
      console.error(`${name}: importing ${UNITS} units ...`);
      const load = [loadavg()[0]!];
      const r = await measure(storage);
      load.push(loadavg()[0]!);
      console.error(`${name}: import ${r.importS.toFixed(1)} s, exact p99 ${ms(quantile(r.exact, 0.99))}, fuzzy p99 ${ms(quantile(r.fuzzy, 0.99))}`);
      const service = createService({ config: { maxStrings: 1000, maxChars: 1_000_000 }, engine, detector, planners: { text: planText, html: planHtml }, memories: r.book, keepSpans: true });
      results[name] = { ...r, overhead: await overhead(service, r.memory, sentences) };
      console.error(`${name}: a ${PARAGRAPHS}-paragraph document ...`);
      results[name]!.document = await documentRow(config.databaseUrl);
      results[name]!.load = [...load, loadavg()[0]!];
    } finally {
      await storage.close();
    }
  }
} finally {
  await db.drop();
  cluster?.stop();
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}

const names = Object.keys(results);
const row = (label: string, goal: string, f: (r: (typeof results)[string]) => string) => `| ${label} | ${goal} | ${names.map((n) => f(results[n]!)).join(' | ')} |`;
console.log(`| ${UNITS.toLocaleString('en-US')} segments | goal | ${names.join(' | ')} |`);
console.log(`|---|---|${names.map(() => '---|').join('')}`);
console.log(row('import time', '≤ 60 s', (r) => `${r.importS.toFixed(1)} s (${Math.round(UNITS / r.importS).toLocaleString('en-US')} units/s)`));
console.log(row('resident memory growth during the import', '≤ +300 MB', (r) => `+${r.rssMb.toFixed(0)} MB`));
console.log(row(`exact lookup of one sentence, p50 / p99 (${LOOKUPS})`, 'p99 ≤ 1 ms', (r) => `${ms(quantile(r.exact, 0.5))} / ${ms(quantile(r.exact, 0.99))}`));
console.log(row(`a round trip with nothing to do (\`SELECT 1\`), p50 / p99 (${LOOKUPS})`, '', (r) => (r.roundTrip.length ? `${ms(quantile(r.roundTrip, 0.5))} / ${ms(quantile(r.roundTrip, 0.99))}` : '— (in process)')));
console.log(row(`fuzzy lookup of one sentence, p50 / p99 (${results[names[0]!]!.fuzzy.length})`, 'p99 ≤ 10 ms', (r) => `${ms(quantile(r.fuzzy, 0.5))} / ${ms(quantile(r.fuzzy, 0.99))}`));
console.log(row('fuzzy lookups that found their pair first', 'all', (r) => `${r.fuzzyFound}/${r.fuzzy.length}`));
console.log(row(`${sentences.length} sentences translated one request each, no memory → memory without a hit (median of ${ROUNDS})`, '≤ +5 %', (r) =>
  `${(r.overhead!.without / 1000).toFixed(2)} s → ${(r.overhead!.with / 1000).toFixed(2)} s (${(100 * (r.overhead!.with / r.overhead!.without - 1)).toFixed(1)} %)`));
console.log(row(`a ${PARAGRAPHS}-paragraph document fully in a memory, upload to done: memory → model (median of ${DOCUMENT_ROUNDS})`, '≥ 20× faster', (r) =>
  `${ms(r.document!.memory)} → ${(r.document!.model / 1000).toFixed(2)} s (${(r.document!.model / r.document!.memory).toFixed(1)}×)`));
console.log(row('machine load: 1-minute load average at the start, after the lookups, at the end (2 cores)', '', (r) => r.load!.map((x) => x.toFixed(1)).join(' → ')))
