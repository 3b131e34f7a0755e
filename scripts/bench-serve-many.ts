// The serving half of `npm run bench:models`: a real server (`dragoman serve`, its own process) with `copies` copies of
// the tiny-marian-de-en fixture installed under as many language pairs, DRAGOMAN_MODEL_MEMORY holding `fit` of them.
// Measures the first request to an unloaded model against its load time, then `clients` clients sending requests
// across every model for `seconds` while a model is imported and two are removed (once the clients have no request to
// them under way), the server's resident memory sampled throughout (/proc/PID/status VmRSS). Prints one table.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../src/cli/dispatch.ts';
import { readModelFolder } from '../src/engine/model/model-folder.ts';
import { modelCost } from '../src/engine/translate/resident-models.ts';
import { LANGUAGES } from '../src/languages/catalog.ts';
import { listening } from '../test/server-process.ts';

export interface ServeManyOptions {
  seconds: number;
  clients: number;
  copies: number;
  fit: number;
}

const ROOT = resolve(import.meta.dirname, '..');
const FIXTURE = resolve(ROOT, 'test/fixtures/models/tiny-marian-de-en');
const SENTENCE = 'Das Haus ist klein, aber der Garten ist groß.';
/** How long the clients load the one-model server that measures the overhead. */
const OVERHEAD_SECONDS = 15;

async function cli(env: Record<string, string>, args: string[]): Promise<string> {
  const out: string[] = [];
  const code = await main(args, { env, out: (l) => void out.push(l), err: () => undefined });
  if (code !== 0) throw new Error(`dragoman ${args.join(' ')} exited ${code}`);
  return out.join('\n');
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

const mib = (b: number) => (b / 2 ** 20).toFixed(1);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

interface Server {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

async function serve(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { url } = await listening(child);
  return {
    child, url,
    stop: () => new Promise<void>((r) => {
      child.once('exit', () => r());
      child.kill('SIGTERM');
    }),
  };
}

async function metric(url: string, name: string, label = ''): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer bench' } })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${label}`) && !l.startsWith(`${name}_`));
  return line ? Number(line.split(' ').at(-1)) : NaN;
}

export async function serveMany(o: ServeManyOptions): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'dragoman-bench-serve-many-'));
  const codes = LANGUAGES.map((l) => l.code).filter((c) => /^[a-z]{2}$/.test(c) && c !== 'en' && c !== 'de').slice(0, o.copies + 1);
  const models = join(work, 'models');
  const staging = join(work, 'staging');
  mkdirSync(models);
  for (const c of codes.slice(0, o.copies)) cpSync(FIXTURE, join(models, `copy-${c}-en`), { recursive: true });
  const late = codes[o.copies]!;
  cpSync(FIXTURE, join(staging, `copy-${late}-en`), { recursive: true });
  const workers = 1;
  const cost = modelCost(await readModelFolder(FIXTURE, 'int8'), workers);
  const budget = cost * o.fit;
  const env = {
    DRAGOMAN_PORT: '0', DRAGOMAN_DATA_DIR: join(work, 'data'), DRAGOMAN_MODELS_DIR: models, DRAGOMAN_WORKERS: String(workers),
    DRAGOMAN_INTRA_OP_THREADS: '1', DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_LOG_LEVEL: 'warn', DRAGOMAN_MODEL_MEMORY: String(budget),
    DRAGOMAN_METRICS_TOKEN: 'bench',
  };
  const rows: string[][] = [['measure', 'value', 'goal']];
  let server: Server | undefined;
  try {
    const tar = join(work, 'late.tar');
    await cli({ ...env, DRAGOMAN_MODELS_DIR: staging }, ['models', 'pack', `copy-${late}-en`, '-o', tar]);
    const key = (JSON.parse(await cli(env, ['keys', 'create', '--plan', 'enterprise', '--json'])) as { key: string }).key;

    // The overhead: the same server with a budget of one model, having served one request (onnxruntime started, one
    // graph-preparing thread run), less that model's estimate.
    server = await serve({ ...env, DRAGOMAN_MODEL_MEMORY: String(cost) });
    await (await fetch(`${server.url}/v1/translate`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ q: SENTENCE, source: codes[0], target: 'en' }),
    })).text();
    await new Promise((r) => setTimeout(r, 1000));
    const overheadIdle = rssBytes(server.child.pid!) - cost;
    const heapAtOverhead = await metric(server.url, 'nodejs_heap_size_total_bytes');
    // The same traffic as the run below, all to the one model: what serving it takes in the main thread beside the
    // models (V8's young generation grown to its size under load, requests under way) is the growth of its heap. The
    // process's RSS grows more: the one worker then runs batches of up to 16 rows, whose arenas are the model's.
    let onePeakRss = rssBytes(server.child.pid!);
    let onePeakHeap = heapAtOverhead;
    const oneUrl = server.url;
    const onePid = server.child.pid!;
    const overheadSampler = setInterval(() => {
      onePeakRss = Math.max(onePeakRss, rssBytes(onePid));
    }, 100);
    const overheadHeapSampler = setInterval(() => {
      void metric(oneUrl, 'nodejs_heap_size_total_bytes').then((b) => {
        if (b > onePeakHeap) onePeakHeap = b;
      }, () => undefined);
    }, 1000);
    const until = performance.now() + OVERHEAD_SECONDS * 1000;
    await Promise.all(Array.from({ length: o.clients }, async (_, i) => {
      for (let n = 0; performance.now() < until; n++) {
        await (await fetch(`${oneUrl}/v1/translate`, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify({ q: `${SENTENCE} ${i} ${n}`, source: codes[0], target: 'en' }),
        })).arrayBuffer();
      }
    }));
    clearInterval(overheadSampler);
    clearInterval(overheadHeapSampler);
    const trafficHeap = onePeakHeap - heapAtOverhead;
    const overhead = overheadIdle + trafficHeap;
    await server.stop();

    server = await serve(env);
    const { url } = server;
    const pid = server.child.pid!;
    let peakRss = rssBytes(pid);
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, rssBytes(pid));
    }, 100);
    // The main thread's V8 heap (tokenizers live there, outside the models' estimate), once a second.
    let peakHeap = 0;
    const heapSampler = setInterval(() => {
      void metric(url, 'nodejs_heap_size_total_bytes').then((b) => {
        if (b > peakHeap) peakHeap = b;
      }, () => undefined);
    }, 1000);
    const translate = (code: string, q = SENTENCE) => fetch(`${url}/v1/translate`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ q, source: code, target: 'en' }),
    });

    // First requests to unloaded models (the preloaded ones are the first `fit` by name), each against its load time,
    // after the process's own first request (to a preloaded model): its first request at all, whatever the model,
    // runs the HTTP path and the statements of the key's checks for the first time.
    const sorted = codes.slice(0, o.copies).map((c) => `copy-${c}-en`).sort().map((n) => n.split('-')[1]!);
    await (await translate(sorted[0]!)).arrayBuffer();
    const unloaded = sorted.slice(o.fit, o.fit + 8);
    const extra: number[] = [];
    const loads: number[] = [];
    const warm: number[] = [];
    /** What the first request costs beyond its load and the same request once loaded. */
    const beyond: number[] = [];
    for (const c of unloaded) {
      const t0 = performance.now();
      const r = await translate(c);
      const first = performance.now() - t0;
      if (r.status !== 200) throw new Error(`first request to copy-${c}-en: ${r.status} ${await r.text()}`);
      const loadMs = (await metric(url, 'dragoman_model_load_seconds', `{model="copy-${c}-en"}`)) * 1000;
      const t1 = performance.now();
      await (await translate(c)).text();
      const warmMs = performance.now() - t1;
      warm.push(warmMs);
      loads.push(loadMs);
      extra.push(first - loadMs);
      beyond.push(first - loadMs - warmMs);
    }

    // Clients across every model for `seconds`; a third in, a model is imported; two thirds in, two are removed (taken
    // out of the clients' list first, as an operator drains traffic before removing).
    const live = codes.slice(0, o.copies);
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let sent = 0;
    let stop = false;
    const latencies: number[] = [];
    /** Requests under way per model (language code): a model is removed once none is left, as an operator drains it. */
    const inFlight = new Map<string, number>();
    const clients = Array.from({ length: o.clients }, async () => {
      while (!stop) {
        const c = live[Math.floor(Math.random() * live.length)]!;
        const t0 = performance.now();
        inFlight.set(c, (inFlight.get(c) ?? 0) + 1);
        const r = await translate(c, `${SENTENCE} ${sent++}`).catch((e: Error) => ({ status: 0, text: async () => e.message }));
        inFlight.set(c, inFlight.get(c)! - 1);
        latencies.push(performance.now() - t0);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status !== 200) failures.push(`copy-${c}-en ${r.status} ${await r.text()}`);
        else await (r as Response).arrayBuffer();
      }
    });
    const ms = o.seconds * 1000;
    await new Promise((r) => setTimeout(r, ms / 3));
    await cli(env, ['models', 'import', tar]);
    const imported = performance.now();
    let answeredAfter = NaN;
    while (performance.now() - imported < 30_000) {
      const r = await translate(late);
      if (r.status === 200) {
        answeredAfter = performance.now() - imported;
        live.push(late);
        break;
      }
      await r.text();
      await new Promise((res) => setTimeout(res, 20));
    }
    await new Promise((r) => setTimeout(r, ms / 3 - (performance.now() - imported)));
    const removed = live.splice(0, 2);
    // Drained: no request to them under way (they may wait seconds for a load when every request needs one).
    const drainStart = performance.now();
    while (removed.some((c) => (inFlight.get(c) ?? 0) > 0) && performance.now() - drainStart < 60_000) await new Promise((r) => setTimeout(r, 20));
    for (const c of removed) await cli(env, ['models', 'remove', `copy-${c}-en`]);
    const languagesAfter = async () => ((await (await fetch(`${url}/v1/languages`, { headers: { 'x-api-key': key } })).json()) as {
      data: { languages: unknown[] };
    }).data.languages.length;
    const t = performance.now();
    while ((await languagesAfter()) !== o.copies + 1 - 2 + 1 && performance.now() - t < 10_000) await new Promise((r) => setTimeout(r, 50));
    const removedAfter = performance.now() - t;
    await new Promise((r) => setTimeout(r, Math.max(0, ms / 3 - removedAfter)));
    stop = true;
    await Promise.all(clients);
    clearInterval(sampler);
    clearInterval(heapSampler);
    const loadsTotal = await metric(url, 'dragoman_model_loads_total');
    const evictions = await metric(url, 'dragoman_model_evictions_total');
    const loadedNow = await metric(url, 'dragoman_models_loaded');
    const collections = await metric(url, 'dragoman_model_heap_collections_total');

    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    rows.push(
      ['models installed / budget holds', `${o.copies} (+1 imported, -2 removed) / ${o.fit}`, ''],
      ['one model\'s estimate ((8 MiB + 1.5 x ONNX bytes) x workers + 20 x tokenizer.json)', `${mib(cost)} MiB`, ''],
      ['first request to an unloaded model, minus its load time (p50 / max of 8)', `${pct(extra, 50).toFixed(0)} / ${Math.max(...extra).toFixed(0)} ms`, '<= 50 ms'],
      ['  each, in the order requested', extra.map((x) => x.toFixed(0)).join(', ') + ' ms', ''],
      ['  its load time (p50 / max)', `${pct(loads, 50).toFixed(0)} / ${Math.max(...loads).toFixed(0)} ms`, ''],
      ['  the same request once loaded (p50)', `${pct(warm, 50).toFixed(0)} ms`, ''],
      ['  first request minus its load time and the same request once loaded (p50 / max)', `${pct(beyond, 50).toFixed(0)} / ${Math.max(...beyond).toFixed(0)} ms`, ''],
      [`requests by ${o.clients} clients over ${o.seconds} s`, String(total), ''],
      ['requests failed (not 200)', String(total - (statuses.get(200) ?? 0)), '0'],
      ['request latency p50 / p99', `${pct(latencies, 50).toFixed(0)} / ${pct(latencies, 99).toFixed(0)} ms`, ''],
      ['model loads / evictions / full collections of the main thread heap during the run', `${loadsTotal} / ${evictions} / ${collections}`, ''],
      ['models loaded at the end', String(loadedNow), `<= ${o.fit}`],
      ['imported model answers after models import finished', `${(answeredAfter / 1000).toFixed(2)} s`, '<= 5 s'],
      ['removed models gone from /v1/languages after models remove', `${(removedAfter / 1000).toFixed(2)} s`, ''],
      ['overhead, idle: server RSS with one model loaded after one request, less its estimate', `${mib(overheadIdle)} MiB`, ''],
      [`  one model under the same ${o.clients} clients for ${OVERHEAD_SECONDS} s: main thread V8 heap growth (sampled each second) / RSS peak`, `${mib(trafficHeap)} / ${mib(onePeakRss)} MiB`, ''],
      ['overhead: idle, plus the main thread heap\'s growth under the traffic', `${mib(overhead)} MiB`, ''],
      ['server RSS, peak', `${mib(peakRss)} MiB`, `<= ${mib(overhead + budget)} MiB (overhead + budget)`],
      ['peak RSS minus overhead / budget', `${mib(peakRss - overhead)} / ${mib(budget)} MiB`, ''],
      ['  main thread V8 heap, peak (sampled each second) / after the one-model request', `${mib(peakHeap)} / ${mib(heapAtOverhead)} MiB`, ''],
      ['server RSS, peak, against the idle overhead', `${mib(peakRss)} MiB`, `(${mib(overheadIdle + budget)} MiB: idle overhead + budget)`],
    );
    if (failures.length) console.log(`failures (first 5):\n${failures.slice(0, 5).join('\n')}`);
  } finally {
    await server?.stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  console.log(`serving many models: ${o.copies} copies of tiny-marian-de-en, ${o.clients} clients, ${o.seconds} s`);
  for (const r of rows) console.log(`| ${r.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`);
}
