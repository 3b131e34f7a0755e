// npm run bench:soak [-- <model folder>] [--minutes 5] [--clients 16] [--hostile 2]
//
// Steadiness under concurrent load, from the outside: the real server (`dragoman serve` in a child process, as
// `npm start` runs it, translation cache off) with one model, a key made with the CLI, and N clients sending
// /v1/translate requests of 1-3 English sentences each for the whole run. Beside them, --hostile clients send
// requests at the size limits, one after another (forms of 20,000-100,000 fields without a key, 12,000 multipart
// parts, 100,000 characters of HTML, detection of 100,000 letters), and a prober asks GET /health every 100 ms.
// Every 10 s it prints requests, errors, latency p50/p99, the slowest request, the server's resident memory
// (VmRSS, workers included), /health p99 and the event loop lag p99 the server reports on /metrics
// (dragoman_event_loop_lag_seconds), then the memory growth after warm-up. What LibreTranslate users complain
// of, measured: memory that grows with traffic, requests that hang under concurrent load, and one request that
// stalls all the others. Not a test: a table.
// Model folder: argument, else DRAGOMAN_BENCH_MODEL, else ../shared/models/bench-marian-base,
// ../bench-models/bench-marian-base, else the tiny fixture.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchModelFolder, ROOT } from './bench-model-folder.ts';
import { benchEnv, enterpriseKey, startServer } from './bench-server.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { minutes: { type: 'string', default: '5' }, clients: { type: 'string', default: '16' }, hostile: { type: 'string', default: '2' } },
});
const HOSTILE = Number(values.hostile);
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
const env = benchEnv(work, models, { DRAGOMAN_METRICS_TOKEN: 'soak-metrics-token' });
const secret = enterpriseKey(env);
const { url, child: server } = await startServer(env);

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

interface Interval { requests: number; errors: number; hung: number; latencies: number[]; health: number[]; hostile: number }
const fresh = (): Interval => ({ requests: 0, errors: 0, hung: 0, latencies: [], health: [], hostile: 0 });
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

// Requests at the size limits, each answered (a 400 for the forms, a 200 for the rest) without stalling the others.
const BOUNDARY = 'soakboundary';
const HOSTILE_CASES: { path: string; type: string; keyed: boolean; body: string }[] = [
  { path: '/libretranslate/translate', type: 'application/x-www-form-urlencoded', keyed: false, body: 'q=a&'.repeat(20_000) + 'target=de' },
  { path: '/language/translate/v2', type: 'application/x-www-form-urlencoded', keyed: true, body: 'q=a&'.repeat(100_000) + 'target=de' },
  { path: '/libretranslate/detect', type: `multipart/form-data; boundary=${BOUNDARY}`, keyed: false,
    body: `--${BOUNDARY}\r\ncontent-disposition: form-data; name="q"\r\n\r\na\r\n`.repeat(12_000) + `--${BOUNDARY}--\r\n` },
  { path: '/v1/translate', type: 'application/json', keyed: true, body: JSON.stringify({ q: '<a>a'.repeat(25_000), source: 'en', target: 'de', format: 'html' }) },
  { path: '/v1/translate', type: 'application/json', keyed: true, body: JSON.stringify({ q: 'a<br>'.repeat(20_000), source: 'en', target: 'de', format: 'html' }) },
  { path: '/v1/detect', type: 'application/json', keyed: true, body: JSON.stringify({ q: Array.from({ length: 100_000 }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('') }) },
];

async function hostileClient(offset: number): Promise<void> {
  for (let i = offset; !stop; i++) {
    const c = HOSTILE_CASES[i % HOSTILE_CASES.length]!;
    try {
      const res = await fetch(`${url}${c.path}`, {
        method: 'POST',
        headers: { 'content-type': c.type, ...(c.keyed ? { 'x-api-key': secret } : {}) },
        body: c.body,
        signal: AbortSignal.timeout(HANG_MS),
      });
      await res.arrayBuffer();
      if (res.status >= 500) errorKinds.set(`hostile HTTP ${res.status}`, (errorKinds.get(`hostile HTTP ${res.status}`) ?? 0) + 1);
    } catch (err) {
      errorKinds.set(`hostile ${(err as Error).name}`, (errorKinds.get(`hostile ${(err as Error).name}`) ?? 0) + 1);
    }
    current.hostile++;
  }
}

async function healthProber(): Promise<void> {
  while (!stop) {
    const t0 = performance.now();
    await fetch(`${url}/health`).then((r) => r.arrayBuffer()).catch(() => undefined);
    current.health.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The event loop lag p99 the server measured since the previous scrape (seconds → ms). */
async function lagP99(): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${env.DRAGOMAN_METRICS_TOKEN}` } })).text();
  return Number(/^dragoman_event_loop_lag_seconds\{quantile="0\.99"\} (\S+)$/m.exec(text)?.[1] ?? NaN) * 1000;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};
const rssAtStart = rssMb();
console.log(`model ${modelFolder}, ${CLIENTS} clients, ${MINUTES} min, requests of 1-3 sentences en→de, cache off; ` +
  `${HOSTILE} hostile clients (requests at the size limits), /health probed every 100 ms`);
console.log(`server ${url}, pid ${server.pid}, resident after loading: ${rssAtStart.toFixed(0)} MB\n`);
console.log('| t (s) | requests | errors | hung | p50 ms | p99 ms | max ms | server RSS MB | hostile | /health p99 ms | loop lag p99 ms |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
const samples: { t: number; rss: number }[] = [];
const totals = fresh();
const lags: number[] = [];
await lagP99(); // from here on, each scrape covers one interval
const clients = [...Array.from({ length: CLIENTS }, client), ...Array.from({ length: HOSTILE }, (_, i) => hostileClient(i * 2)), healthProber()];
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
  for (const ms of i.health) totals.health.push(ms);
  totals.hostile += i.hostile;
  const lag = await lagP99();
  lags.push(lag);
  // An interval in which no request ended (each took longer than 10 s) has no latencies: '-'.
  const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '-');
  console.log(`| ${t.toFixed(0)} | ${i.requests} | ${i.errors} | ${i.hung} | ${ms(pct(i.latencies, 50))} | ` +
    `${ms(pct(i.latencies, 99))} | ${ms(i.latencies.reduce((a, b) => Math.max(a, b), -Infinity))} | ${rss.toFixed(0)} | ` +
    `${i.hostile} | ${ms(pct(i.health, 99))} | ${ms(lag)} |`);
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
console.log(`hostile requests: ${totals.hostile}; /health p99 ${pct(totals.health, 99).toFixed(0)} ms (max ` +
  `${totals.health.reduce((a, b) => Math.max(a, b), 0).toFixed(0)} ms over ${totals.health.length} probes); event loop lag p99 ` +
  `${pct(lags, 50).toFixed(0)} ms in the median interval, ${Math.max(...lags).toFixed(0)} ms in the worst`);
console.log(`resident memory: ${rssAtStart.toFixed(0)} MB loaded, ${samples[0]?.rss.toFixed(0)} MB at 10 s, ` +
  `${later[0]?.rss.toFixed(0) ?? '-'} MB after the first minute, ${samples.at(-1)?.rss.toFixed(0)} MB at the end; ` +
  `after the first minute ${Number.isNaN(slope) ? '(run longer than 1 min for a slope)' : `${(slope * 60).toFixed(1)} MB a minute`}`);
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
rmSync(work, { recursive: true, force: true });
