// npm run bench:soak [-- <model folder>] [--minutes 5] [--clients 16]
//
// Steadiness under concurrent load, from the outside: the real server (`dragoman serve` in a child process, as
// `npm start` runs it, translation cache off) with one model, a key made with the CLI, and N clients sending
// /v1/translate requests of 1-3 English sentences each for the whole run. Every 10 s it
// prints requests, errors, latency p50/p99, the slowest request and the server's resident memory (VmRSS, workers
// included), then the memory growth after warm-up. What LibreTranslate users complain of, measured: memory that
// grows with traffic, and requests that hang under concurrent load. Not a test: a table.
// Model folder: argument, else DRAGOMAN_BENCH_MODEL, else ../shared/models/bench-marian-base,
// ../bench-models/bench-marian-base, else the tiny fixture.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchModelFolder, ROOT } from './bench-model-folder.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { minutes: { type: 'string', default: '5' }, clients: { type: 'string', default: '16' } },
});
const MINUTES = Number(values.minutes);
const CLIENTS = Number(values.clients);
const INTERVAL_MS = 10_000;
/** A request slower than this is counted as hung (and abandoned). */
const HANG_MS = 60_000;

const root = ROOT;
const modelFolder = benchModelFolder(positionals[0]);

const work = mkdtempSync(join(tmpdir(), 'dragoman-soak-'));
const models = join(work, 'models');
mkdirSync(models);
// A folder of its own with a dragoman.json, so any model folder name is read as en→de Marian.
const model = join(models, 'soak-en-de');
mkdirSync(model);
for (const f of ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx']) {
  if (existsSync(join(modelFolder, f))) symlinkSync(join(modelFolder, f), join(model, f));
}
writeFileSync(join(model, 'dragoman.json'), JSON.stringify({ family: 'marian', source: 'en', target: 'de' }));
const env = {
  ...process.env,
  DRAGOMAN_PORT: '0',
  DRAGOMAN_DATA_DIR: join(work, 'data'),
  DRAGOMAN_MODELS_DIR: models,
  DRAGOMAN_LOG_LEVEL: 'warn',
  DRAGOMAN_CACHE_SIZE: '0',
};

const created = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', 'create', '--plan', 'enterprise', '--json'],
  { cwd: root, env, encoding: 'utf8' });
if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
const secret = (JSON.parse(created.stdout) as { key: string }).key;

const server = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
let serverLog = '';
const url = await new Promise<string>((resolveUrl, reject) => {
  const onData = (chunk: Buffer) => {
    serverLog += chunk.toString();
    const m = /listening on (http:\/\/\S+)/.exec(serverLog);
    if (m) resolveUrl(m[1]!);
  };
  server.stdout.on('data', onData);
  server.stderr.on('data', onData);
  server.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${serverLog}`)));
});

const rssMb = (): number => {
  const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
};

// Real English sentences (the tiny en-de fixture's 500 dev sources, Multi30k-style captions); the server's
// translation cache is off, so every sentence reaches the engine however often it repeats.
const SENTENCES = readFileSync(join(root, 'test/fixtures/models/tiny-marian-en-de/dev.jsonl'), 'utf8')
  .split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { src: string }).src);
// mulberry32: a 32-bit generator in integer arithmetic (an LCG in doubles loses bits and cycles early).
let seed = 7;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
};
const sentence = () => SENTENCES[Math.floor(rand() * SENTENCES.length)]!;

interface Interval { requests: number; errors: number; hung: number; latencies: number[] }
const fresh = (): Interval => ({ requests: 0, errors: 0, hung: 0, latencies: [] });
let current = fresh();
const errorKinds = new Map<string, number>();
let stop = false;

async function client(): Promise<void> {
  while (!stop) {
    const q = Array.from({ length: 1 + Math.floor(rand() * 3) }, sentence);
    const t0 = performance.now();
    let kind = '';
    try {
      const res = await fetch(`${url}/v1/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secret },
        body: JSON.stringify({ q, source: 'en', target: 'de' }),
        signal: AbortSignal.timeout(HANG_MS),
      });
      const body = (await res.json()) as { data?: { translations?: unknown[] } };
      if (res.status !== 200 || body.data?.translations?.length !== q.length) kind = `HTTP ${res.status}`;
    } catch (err) {
      kind = (err as Error).name === 'TimeoutError' ? 'hung' : (err as Error).message;
    }
    const ms = performance.now() - t0;
    current.requests++;
    current.latencies.push(ms);
    if (kind === 'hung') current.hung++;
    if (kind) {
      current.errors++;
      errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
    }
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const rssAtStart = rssMb();
console.log(`model ${modelFolder}, ${CLIENTS} clients, ${MINUTES} min, requests of 1-3 sentences en→de, cache off`);
console.log(`server ${url}, pid ${server.pid}, resident after loading: ${rssAtStart.toFixed(0)} MB\n`);
console.log('| t (s) | requests | errors | hung | p50 ms | p99 ms | max ms | server RSS MB |');
console.log('|---|---|---|---|---|---|---|---|');
const samples: { t: number; rss: number }[] = [];
const totals = fresh();
const clients = Array.from({ length: CLIENTS }, client);
const started = performance.now();
while (performance.now() - started < MINUTES * 60_000) {
  await new Promise((r) => setTimeout(r, INTERVAL_MS));
  const i = current;
  current = fresh();
  const t = (performance.now() - started) / 1000;
  const rss = rssMb();
  samples.push({ t, rss });
  totals.requests += i.requests;
  totals.errors += i.errors;
  totals.hung += i.hung;
  for (const ms of i.latencies) totals.latencies.push(ms); // no spread: an interval can hold ~10^5
  // An interval in which no request ended (each took longer than 10 s) has no latencies: '-'.
  const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
  console.log(`| ${t.toFixed(0)} | ${i.requests} | ${i.errors} | ${i.hung} | ${ms(pct(i.latencies, 50))} | ` +
    `${ms(pct(i.latencies, 99))} | ${ms(i.latencies.reduce((a, b) => Math.max(a, b), -Infinity))} | ${rss.toFixed(0)} |`);
}
stop = true;
await Promise.all(clients);

// Growth after warm-up (the first minute: arenas and caches fill): least-squares slope over the later samples.
const later = samples.filter((s) => s.t > 60);
let slope = NaN;
if (later.length >= 2) {
  const mt = later.reduce((a, s) => a + s.t, 0) / later.length;
  const mr = later.reduce((a, s) => a + s.rss, 0) / later.length;
  slope = later.reduce((a, s) => a + (s.t - mt) * (s.rss - mr), 0) / later.reduce((a, s) => a + (s.t - mt) ** 2, 0);
}
console.log(`\ntotal: ${totals.requests} requests, ${totals.errors} errors, ${totals.hung} hung (> ${HANG_MS / 1000} s); ` +
  `latency p50 ${pct(totals.latencies, 50).toFixed(0)} ms, p99 ${pct(totals.latencies, 99).toFixed(0)} ms`);
if (errorKinds.size) console.log(`errors: ${[...errorKinds].map(([k, n]) => `${k} × ${n}`).join(', ')}`);
console.log(`resident memory: ${rssAtStart.toFixed(0)} MB loaded, ${samples[0]?.rss.toFixed(0)} MB at 10 s, ` +
  `${later[0]?.rss.toFixed(0) ?? '-'} MB after the first minute, ${samples.at(-1)?.rss.toFixed(0)} MB at the end; ` +
  `after the first minute ${Number.isNaN(slope) ? '(run longer than 1 min for a slope)' : `${(slope * 60).toFixed(1)} MB a minute`}`);
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
rmSync(work, { recursive: true, force: true });
