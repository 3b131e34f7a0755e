// npm run bench:hostile [-- --cap 60] [--only name,name]
//
// One hostile request at a time against the real server (`dragoman serve` in a child process, the fixture
// models, one engine worker), each on a fresh server, while a prober asks GET /health back to back. For each
// case: the status and time of the hostile request, and the /health stall (the slowest /health answer while it
// ran) and p99. A case still running after --cap seconds is abandoned (its server killed) and shown as "> cap".
// Not a test: a table for the before/after comparison of the request-size hardening (docs/hardening.md).
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CORE_MODELS, FIXTURE_MODELS_DIR } from '../test/fixture-models.ts';
import { benchEnv, enterpriseKey, startServer } from './bench-server.ts';

const { values } = parseArgs({ options: { cap: { type: 'string', default: '60' }, only: { type: 'string' } } });
const CAP_MS = Number(values.cap) * 1000;

interface Case {
  name: string;
  path: string;
  /** Send the key (x-api-key) with it. */
  keyed: boolean;
  contentType: string;
  body: () => string;
  /** Also time a small translation that starts 1 s after the hostile request (fairness). */
  small?: boolean;
}

const repeat = (unit: string, n: number) => unit.repeat(n);
const BOUNDARY = 'dragomanboundary';
const multipart = (parts: number) =>
  Array.from({ length: parts }, () => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="q"\r\n\r\na\r\n`).join('') +
  `--${BOUNDARY}--\r\n`;
const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const JSON_TYPE = 'application/json';
let seed = 11;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
};
const letters = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('');
const html = (q: string) => JSON.stringify({ q, source: 'en', target: 'de', format: 'html' });

const CASES: Case[] = [
  { name: 'libre form 20k fields', path: '/libretranslate/translate', keyed: false, contentType: FORM, body: () => repeat('q=a&', 20_000) + 'source=en&target=de' },
  { name: 'libre form 100k fields', path: '/libretranslate/translate', keyed: false, contentType: FORM, body: () => repeat('q=a&', 100_000) + 'source=en&target=de' },
  { name: 'libre detect form 20k', path: '/libretranslate/detect', keyed: false, contentType: FORM, body: () => repeat('q=a&', 20_000) },
  { name: 'libre multipart 12k parts', path: '/libretranslate/translate', keyed: false, contentType: MULTIPART, body: () => multipart(12_000) },
  { name: 'google form 20k fields', path: '/language/translate/v2', keyed: true, contentType: FORM, body: () => repeat('q=a&', 20_000) + 'source=en&target=de' },
  { name: 'google form 100k fields', path: '/language/translate/v2', keyed: true, contentType: FORM, body: () => repeat('q=a&', 100_000) + 'source=en&target=de' },
  { name: 'google multipart 12k parts', path: '/language/translate/v2', keyed: true, contentType: MULTIPART, body: () => multipart(12_000) },
  { name: 'html <a>a x25k (100k chars)', path: '/v1/translate', keyed: true, contentType: JSON_TYPE, body: () => html(repeat('<a>a', 25_000)) },
  { name: 'html <b> x33k unclosed', path: '/v1/translate', keyed: true, contentType: JSON_TYPE, body: () => html(repeat('<b>', 33_333)) },
  { name: 'html <p>a</p> x12.5k', path: '/v1/translate', keyed: true, contentType: JSON_TYPE, body: () => html(repeat('<p>a</p>', 12_500)) },
  { name: 'html a<br> x20k', path: '/v1/translate', keyed: true, contentType: JSON_TYPE, body: () => html(repeat('a<br>', 20_000)) },
  { name: 'html &amp; x20k', path: '/v1/translate', keyed: true, contentType: JSON_TYPE, body: () => html(repeat('&amp;', 20_000)) },
  { name: 'html <i>a. x25k', path: '/v1/translate', keyed: true, contentType: JSON_TYPE, body: () => html(repeat('<i>a. ', 16_666)) },
  { name: 'detect 100k random letters', path: '/v1/detect', keyed: true, contentType: JSON_TYPE, body: () => JSON.stringify({ q: letters(100_000) }) },
  { name: 'detect 100k words', path: '/v1/detect', keyed: true, contentType: JSON_TYPE, body: () => JSON.stringify({ q: repeat('the cat sat ', 8_333) }) },
  { name: 'translate 100k random letters', path: '/v1/translate', keyed: true, contentType: JSON_TYPE, small: true, body: () => JSON.stringify({ q: letters(100_000), source: 'en', target: 'de' }) },
  { name: 'json nested 100k deep', path: '/v1/translate', keyed: true, contentType: JSON_TYPE, body: () => `{"q":${'['.repeat(100_000)}${']'.repeat(100_000)},"target":"de"}` },
];

const only = values.only?.split(',');
const work = mkdtempSync(join(tmpdir(), 'dragoman-hostile-'));
// the three core fixture models, as when the table was first measured (not the further families' fixtures)
mkdirSync(join(work, 'models'));
for (const m of CORE_MODELS) symlinkSync(join(FIXTURE_MODELS_DIR, m), join(work, 'models', m));
const env = benchEnv(work, join(work, 'models'), { DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1' });
const secret = enterpriseKey(env);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};

async function timed(url: string, init: RequestInit): Promise<{ ms: number; status: string }> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(CAP_MS) });
    const text = await res.text();
    const message = res.status === 200 ? '' : ` ${text.slice(0, 90).replace(/\|/g, '/')}`;
    return { ms: performance.now() - t0, status: `${res.status}${message}` };
  } catch (err) {
    return { ms: performance.now() - t0, status: (err as Error).name === 'TimeoutError' ? 'abandoned' : (err as Error).message };
  }
}

console.log(`one hostile request at a time, fresh server each, cap ${CAP_MS / 1000} s; /health probed back to back\n`);
console.log('| case | status | time ms | /health max ms | /health p99 ms | small request ms |');
console.log('|---|---|---|---|---|---|');
for (const c of CASES) {
  if (only && !only.some((o) => c.name.includes(o))) continue;
  const { url, child } = await startServer(env);
  const headers: Record<string, string> = { 'content-type': c.contentType, ...(c.keyed ? { 'x-api-key': secret } : {}) };
  const body = c.body();
  let running = true;
  const health: number[] = [];
  let probeStart: number | undefined;
  const prober = (async () => {
    while (running) {
      const t0 = (probeStart = performance.now());
      await fetch(`${url}/health`, { signal: AbortSignal.timeout(CAP_MS + 5000) }).then((r) => r.text()).catch(() => {});
      probeStart = undefined;
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const small = c.small
    ? new Promise((r) => setTimeout(r, 1000)).then(() => timed(`${url}/v1/translate`, {
        method: 'POST', headers: { 'content-type': JSON_TYPE, 'x-api-key': secret }, body: JSON.stringify({ q: 'A small dog runs.', source: 'en', target: 'de' }),
      }))
    : undefined;
  const result = await timed(`${url}${c.path}`, { method: 'POST', headers, body });
  const smallResult = await small;
  running = false;
  await Promise.race([prober, new Promise((r) => setTimeout(r, 2000))]);
  if (probeStart !== undefined) health.push(performance.now() - probeStart); // still waiting: a stall that never ended
  const time = result.status === 'abandoned' ? `> ${CAP_MS}` : result.ms.toFixed(0);
  console.log(`| ${c.name} | ${result.status} | ${time} | ${Math.max(...health).toFixed(0)} | ${pct(health, 99).toFixed(0)} | ` +
    `${smallResult ? `${smallResult.ms.toFixed(0)} (${smallResult.status.slice(0, 3)})` : ''} |`);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
}
rmSync(work, { recursive: true, force: true });
