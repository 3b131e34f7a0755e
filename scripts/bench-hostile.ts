// npm run bench:hostile [-- --cap 60] [--after 20] [--only name,name] [--pdf-fuzz 1000]
//
// One hostile request at a time against the real server (`dragoman serve` in a child process, the fixture
// models, one engine worker), each on a fresh server, while a prober asks GET /health every 50 ms, during the
// request and --after seconds after its answer (an accepted document is translated meanwhile). For each case: the
// status and time of the hostile request, the slowest /health answer and the p99, and the server's resident memory
// before the request and at the end of the after-window. A case still running after --cap seconds is abandoned
// (its server killed) and shown as "> cap". Not a test: the table of docs/hardening.md.
//
// Then the PDF fuzz (--pdf-fuzz N, default 1,000; skipped without LibreOffice): N mutated PDFs (LibreOffice's
// report and a scanned page, cut short, bytes flipped, objects spliced: test/documents/pdf-mutations.ts) posted one
// after another to one server's /v1/documents, each accepted job followed to its end, /health probed every 50 ms
// throughout: the answers by class, the jobs' ends, and the probes' failures and latency.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { docxOf, docxPadded, docxTwice, srtOf, xliffOneLine, xlsxStrings } from '../test/documents/hostile-files.ts';
import { makeReportPdf, makeScannedPdf } from '../test/documents/pdf-fixtures.ts';
import { mutatePdf, rng } from '../test/documents/pdf-mutations.ts';
import { CORE_MODELS, FIXTURE_MODELS_DIR } from '../test/fixture-models.ts';
import { ROOT } from './bench-model-folder.ts';
import { benchEnv, enterpriseKey, startServer } from './bench-server.ts';

const { values } = parseArgs({
  options: { cap: { type: 'string', default: '60' }, after: { type: 'string', default: '20' }, only: { type: 'string' }, 'pdf-fuzz': { type: 'string', default: '1000' } },
});
const CAP_MS = Number(values.cap) * 1000;
const AFTER_MS = Number(values.after) * 1000;

interface Case {
  name: string;
  path: string;
  /** Send the key (x-api-key) with it: the enterprise key, or a free one with no characters or 9 characters left. */
  keyed: boolean | 'spent' | 'nine';
  /** Undefined: a multipart form (a document upload). */
  contentType?: string;
  body: () => string | Promise<FormData>;
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
/** POST /v1/documents of the file, en to de. */
const documentForm = async (name: string, file: Uint8Array | string | Promise<Uint8Array>): Promise<FormData> => {
  const bytes = await file;
  const form = new FormData();
  form.set('file', new Blob([typeof bytes === 'string' ? Buffer.from(bytes) : Buffer.from(bytes)]), name);
  form.set('source', 'en');
  form.set('target', 'de');
  return form;
};
const DOCS = '/v1/documents';

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
  { name: 'XLIFF 1.1 MB: 20k units on one line, no targets', path: DOCS, keyed: true, body: () => documentForm('one-line.xlf', xliffOneLine(20_000)) },
  { name: 'XLIFF 2.3 MB: 40k units on one line, no targets', path: DOCS, keyed: true, body: () => documentForm('one-line.xlf', xliffOneLine(40_000)) },
  { name: 'XLIFF 1.1 MB, free key with 9 characters left', path: DOCS, keyed: 'nine', body: () => documentForm('one-line.xlf', xliffOneLine(20_000)) },
  { name: 'XLSX with 1M <si> (192 KB)', path: DOCS, keyed: true, body: () => documentForm('strings.xlsx', xlsxStrings(1_000_000)) },
  { name: 'XLSX with 1M <si>, key with no characters left', path: DOCS, keyed: 'spent', body: () => documentForm('strings.xlsx', xlsxStrings(1_000_000)) },
  { name: 'DOCX: 4,600 entries under 64 KB (300 MB unpacked)', path: DOCS, keyed: true, body: () => documentForm('padded.docx', docxPadded(4_600, 65_000)) },
  { name: 'DOCX: 190k paragraphs', path: DOCS, keyed: true, body: () => documentForm('paragraphs.docx', docxOf(190_000)) },
  { name: 'DOCX: 150k runs (1,500 paragraphs of 100)', path: DOCS, keyed: true, body: () => documentForm('runs.docx', docxOf(1_500, 100)) },
  { name: 'DOCX: word/document.xml twice', path: DOCS, keyed: true, body: () => documentForm('twice.docx', docxTwice()) },
  { name: 'SRT: 780k cues (31 MB)', path: DOCS, keyed: true, body: () => documentForm('cues.srt', srtOf(780_000)) },
  { name: 'HTML: 400k empty elements (2.8 MB)', path: DOCS, keyed: true, body: () => documentForm('deep.html', `<html><body>${'<i></i>'.repeat(400_000)}<p>The house is small.</p></body></html>`) },
];

const only = values.only?.split(',');
const work = mkdtempSync(join(tmpdir(), 'dragoman-hostile-'));
// the three core fixture models, as when the table was first measured (not the further families' fixtures)
mkdirSync(join(work, 'models'));
for (const m of CORE_MODELS) symlinkSync(join(FIXTURE_MODELS_DIR, m), join(work, 'models', m));
const env = benchEnv(work, join(work, 'models'), { DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1' });
const secret = enterpriseKey(env);
/** `dragoman keys create --plan free --monthly-chars N`: the new key's secret. */
function freeKey(monthlyChars: number): string {
  const created = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', 'create', '--plan', 'free', '--monthly-chars', String(monthlyChars), '--json'], { cwd: ROOT, env, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { key: string }).key;
}
const secrets = { spent: freeKey(0), nine: freeKey(9) };
/** Resident memory of a process, in MB (Linux). */
const rssMb = (pid: number | undefined): string => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? (Number(m[1]) / 1024).toFixed(0) : '?';
};

/** GET /health every 50 ms until told to stop; then the latencies, a probe still waiting counted as long as it waited. */
const PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const health = [];
let running = true;
let probeStart;
parentPort.on('message', () => {
  running = false;
  if (probeStart !== undefined) health.push(performance.now() - probeStart);
  parentPort.postMessage(health);
});
(async () => {
  while (running) {
    const t0 = (probeStart = performance.now());
    await fetch(workerData.url, { signal: AbortSignal.timeout(workerData.capMs) }).then((r) => r.text()).catch(() => {});
    probeStart = undefined;
    if (running) health.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 50));
  }
})();
`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : NaN;
};

async function timed(url: string, init: RequestInit): Promise<{ ms: number; status: string }> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(CAP_MS) });
    const text = await res.text();
    const message = res.status < 300 ? '' : ` ${text.slice(0, 90).replace(/\|/g, '/')}`;
    return { ms: performance.now() - t0, status: `${res.status}${message}` };
  } catch (err) {
    return { ms: performance.now() - t0, status: (err as Error).name === 'TimeoutError' ? 'abandoned' : (err as Error).message };
  }
}

console.log(`one hostile request at a time, fresh server each, cap ${CAP_MS / 1000} s; /health probed every 50 ms, during and ${AFTER_MS / 1000} s after\n`);
console.log('| case | status | time ms | /health max ms | /health p99 ms | RSS before → after MB | small request ms |');
console.log('|---|---|---|---|---|---|---|');
for (const c of CASES) {
  if (only && !only.some((o) => c.name.includes(o))) continue;
  const { url, child } = await startServer(env);
  const key = c.keyed === true ? secret : c.keyed === false ? undefined : secrets[c.keyed];
  const headers: Record<string, string> = { ...(c.contentType ? { 'content-type': c.contentType } : {}), ...(key ? { 'x-api-key': key } : {}) };
  const body = await c.body();
  const rssBefore = rssMb(child.pid);
  // The prober has a thread of its own: the hostile client's own work (making and sending a 30 MB form) must not
  // delay the probes and be counted as the server's.
  const prober = new Worker(PROBER, { eval: true, workerData: { url: `${url}/health`, capMs: CAP_MS + 5000 } });
  const small = c.small
    ? new Promise((r) => setTimeout(r, 1000)).then(() => timed(`${url}/v1/translate`, {
        method: 'POST', headers: { 'content-type': JSON_TYPE, 'x-api-key': secret }, body: JSON.stringify({ q: 'A small dog runs.', source: 'en', target: 'de' }),
      }))
    : undefined;
  const result = await timed(`${url}${c.path}`, { method: 'POST', headers, body });
  const smallResult = await small;
  await new Promise((r) => setTimeout(r, AFTER_MS));
  const rssAfter = rssMb(child.pid);
  const health = await new Promise<number[]>((resolve) => {
    prober.once('message', resolve);
    prober.postMessage('stop');
  });
  await prober.terminate();
  const time = result.status === 'abandoned' ? `> ${CAP_MS}` : result.ms.toFixed(0);
  console.log(`| ${c.name} | ${result.status} | ${time} | ${Math.max(...health).toFixed(0)} | ${pct(health, 99).toFixed(0)} | ${rssBefore} → ${rssAfter} | ` +
    `${smallResult ? `${smallResult.ms.toFixed(0)} (${smallResult.status.slice(0, 3)})` : ''} |`);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
}

/** GET /health every 50 ms until told to stop; then each probe's latency and whether it answered 200. */
const FUZZ_PROBER = `
const { parentPort, workerData } = require('node:worker_threads');
const probes = [];
let running = true;
parentPort.on('message', () => { running = false; parentPort.postMessage(probes); });
(async () => {
  while (running) {
    const t0 = performance.now();
    const ok = await fetch(workerData.url, { signal: AbortSignal.timeout(10000) }).then((r) => r.text().then(() => r.status === 200)).catch(() => false);
    probes.push({ ms: performance.now() - t0, ok });
    await new Promise((r) => setTimeout(r, 50));
  }
})();
`;

async function pdfFuzz(count: number): Promise<void> {
  if (spawnSync('sh', ['-c', 'command -v soffice'], { encoding: 'utf8' }).status !== 0) {
    console.log('\nPDF fuzz skipped: LibreOffice (soffice) is not installed.');
    return;
  }
  const sources = [new Uint8Array(await makeReportPdf()), await makeScannedPdf()];
  const { url, child } = await startServer(env);
  const rssBefore = rssMb(child.pid);
  const prober = new Worker(FUZZ_PROBER, { eval: true, workerData: { url: `${url}/health` } });
  const headers = { 'x-api-key': secret };
  const random = rng(49);
  const answers = { accepted: 0, refused: 0, failed: 0 };
  const ends = { done: 0, error: 0, unfinished: 0 };
  const jobs: string[] = [];
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}${DOCS}`, { method: 'POST', headers, body: await documentForm(`case-${i}.pdf`, mutatePdf(sources, random, i)) });
    const body = (await res.json().catch(() => ({}))) as { data?: { document?: { id?: string } } };
    if (res.status >= 500) answers.failed++;
    else if (res.status === 202 && body.data?.document?.id) {
      answers.accepted++;
      jobs.push(body.data.document.id);
    } else answers.refused++;
  }
  for (const id of jobs) {
    const until = Date.now() + CAP_MS * 5;
    for (;;) {
      const res = await fetch(`${url}${DOCS}/${id}`, { headers });
      const status = res.status === 200 ? ((await res.json()) as { data: { document: { status: string } } }).data.document.status : `http ${res.status}`;
      if (status === 'done' || status === 'error') {
        ends[status]++;
        break;
      }
      if (Date.now() > until || status.startsWith('http')) {
        ends.unfinished++;
        break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const probes = await new Promise<{ ms: number; ok: boolean }[]>((resolve) => {
    prober.once('message', resolve);
    prober.postMessage('stop');
  });
  await prober.terminate();
  const ms = probes.map((p) => p.ms);
  console.log(`\n| pdf fuzz: mutated PDFs | accepted (202) | refused (4xx) | answers ≥ 500 | jobs done | jobs ended in error | jobs unfinished | /health probes | /health failures | /health max ms | /health p99 ms | time s | RSS before → after MB |`);
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  console.log(`| ${count} | ${answers.accepted} | ${answers.refused} | ${answers.failed} | ${ends.done} | ${ends.error} | ${ends.unfinished} | ${probes.length} | ${probes.filter((p) => !p.ok).length} | ${Math.max(...ms).toFixed(0)} | ${pct(ms, 99).toFixed(0)} | ${seconds.toFixed(0)} | ${rssBefore} → ${rssMb(child.pid)} |`);
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
}

const FUZZ_NAME = 'pdf fuzz';
if (!only || only.some((o) => FUZZ_NAME.includes(o))) await pdfFuzz(Number(values['pdf-fuzz']));
rmSync(work, { recursive: true, force: true });
