// npm run bench [-- <model folder>] [--precision int8|fp32] [--tokens N] [--no-nllb]
// npm run bench -- --nllb <folder of scripts/make-bench-nllb.py>   (the NLLB-600M rows only, 30 new tokens)
// npm run bench -- --llm <folder of scripts/make-bench-llm.py> [--precision int4|int8] [--repeats N] [--rounds N]
//   (the LLM-0.6B rows only: the text-generation pipeline beside the engine, 30 new tokens, int4 then int8)
//
// Dragoman's engine against the plain @huggingface/transformers translation pipeline, side by side, on the same
// model files, in one run: single-sentence latency (p50/p95), batch throughput and 16-client concurrent throughput
// in target tokens/s (medians of 3 runs); then NLLB rows on tiny-nllb. The benchmark models have random (or tiny) weights, so both sides
// generate exactly N new tokens per sentence (EOS suppressed before N: min_new_tokens = max_new_tokens = N), greedy.
// Latencies are taken in turns between the sides; below the table, the onnxruntime floor: the same sessions in a bare
// loop, one onnxruntime run a step (the engine's greedy Loop runs many steps a run and goes under it).
// Model folder: argument, else DRAGOMAN_BENCH_MODEL, else ../shared/models/bench-marian-base,
// ../bench-models/bench-marian-base, else the tiny fixture (numbers then mean little).
import { existsSync, mkdtempSync, rmSync, readdirSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir, availableParallelism, cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { env as hfEnv, pipeline } from '@huggingface/transformers';
import ort from 'onnxruntime-node';
import { loadConfig } from '../src/config/env.ts';
import { createEngine, type BatchEvent, type DragomanEngine } from '../src/engine/index.ts';
import { candidatesNeeded, processorsFor } from '../src/engine/search/logits-processors.ts';
import { argmax } from '../src/engine/search/scores.ts';
import { scanFolders } from '../src/engine/model/registry.ts';
import type { ModelFolder } from '../src/engine/model/model-folder.ts';
import type { DecoderOnlySpec } from '../src/engine/model/runtime-spec.ts';
import { userContent } from '../src/engine/model/translator-prompt.ts';
import { sessionOptions } from '../src/engine/runtime/session-options.ts';
import type { PrecisionSetting } from '../src/engine/types.ts';
import { loadModel } from '../src/engine/runtime/load-model.ts';
import { ModelTokenizer } from '../src/engine/model/tokenizer.ts';
import { hugePageBytes } from '../src/observability/huge-pages.ts';
import { benchModelFolder, modelsDir, ROOT } from './bench-model-folder.ts';
import { SENTENCE, sentences } from './bench-inputs.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const precisionFlag = flag('--precision') as 'int4' | 'int8' | 'fp32' | undefined;
const precision = precisionFlag ?? 'int8';
/** A model of NLLB-200-distilled-600M's size (scripts/make-bench-nllb.py): only its rows are measured. */
const nllb600m = flag('--nllb');
/** A child process measuring one side's start-up and memory (`--probe engine|pipeline <models dir>`). */
const probe = flag('--probe');
/** A model of Qwen3-0.6B's size (scripts/make-bench-llm.py): only its rows are measured. */
const llm06b = flag('--llm');
const TOKENS = Number(flag('--tokens') ?? (nllb600m || llm06b || probe ? 30 : 32));
/** Runs each throughput median is taken over, and latency rounds (fewer: a quicker, noisier run). */
const REPEATS = Number(flag('--repeats') ?? 3);
const roundsFlag = flag('--rounds');
const threadsFlag = flag('--threads');
const withNllb = !args.includes('--no-nllb');
/** Only Dragoman's rows (to compare pool shapes quickly: DRAGOMAN_WORKERS / DRAGOMAN_INTRA_OP_THREADS). */
const engineOnly = args.includes('--engine-only');
/** With --nllb: one session for every request (1 worker x 2 threads) against one per worker (2 x 1), in turns. */
const poolShapes = args.includes('--pool-shapes');
/** The DRAGOMAN_* settings this run measures under (spinning, split decoder, attention fusion...). */
const settings = loadConfig(process.env);
const positional = args.filter((a) => !a.startsWith('--'));

const root = ROOT;
const marianFolder = benchModelFolder(positional[0]);
const nllbFolder = join(root, 'test/fixtures/models/tiny-nllb');
/** transformers.js's name for a precision's files. */
const dtypeOf = (p: string) => (p === 'int4' ? 'q4' : p === 'int8' ? 'q8' : 'fp32');
const dtype = dtypeOf(precision);

// A 20-word sentence for latency; 32 sentences of 8-30 words for throughput (one request of all 32, or 16 clients
// sending them one per request).
const BATCH = sentences(32);

/** Both sides translate a list of texts and resolve when done. */
type Translate = (texts: string[]) => Promise<unknown>;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Single-sentence latency of several sides, measured in turns (6 rounds of 5 sentences each, a 100 ms pause before
 * each turn so spinning threads of the previous side go to sleep): this VM's speed drifts by tens of percent over a
 * minute, and measuring one side after the other let that drift decide close rows.
 */
async function latencies(sides: Translate[], rounds = 6, perTurn = 5): Promise<{ p50: number; p95: number }[]> {
  for (const run of sides) for (let i = 0; i < 3; i++) await run([SENTENCE]);
  const ms: number[][] = sides.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (const [s, run] of sides.entries()) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 0; i < perTurn; i++) {
        const t0 = performance.now();
        await run([SENTENCE]);
        ms[s]!.push(performance.now() - t0);
      }
    }
  }
  return ms.map((xs) => {
    xs.sort((a, b) => a - b);
    return { p50: percentile(xs, 50), p95: percentile(xs, 95) };
  });
}

/**
 * Latency of a lone sentence on an idle machine, the sides in turns, each sentence after IDLE_MS of quiet: what a
 * request to a server with little traffic gets. Measured apart because a kernel that depends on the decoder's ~50 MB of
 * weights staying in the CPU's shared cache pays after idle what the back-to-back rounds above do not: onnxruntime's
 * AMX kernel was 35-50 % slower a step for the first ~100 ms after 10 ms or more of idle (docs/tuning.md; its VNNI kernel, the DRAGOMAN_AMX=off default, +4-6 ms over a sentence).
 */
const IDLE_MS = 1000;
async function idleLatencies(sides: Translate[], samples = 6): Promise<number[]> {
  const ms: number[][] = sides.map(() => []);
  for (let i = 0; i < samples; i++) {
    for (const [s, run] of sides.entries()) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const t0 = performance.now();
      await run([SENTENCE]);
      ms[s]!.push(performance.now() - t0);
    }
  }
  return ms.map((xs) => percentile([...xs].sort((a, b) => a - b), 50));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Target tokens/s of one run of `work` over `texts`. */
async function rate(texts: string[], work: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await work();
  return (texts.length * TOKENS) / ((performance.now() - t0) / 1000);
}

/** One request carrying every sentence. */
const oneRequest = (run: Translate, texts: string[]) => () => run(texts);

/** 16 clients, each sending its share of the sentences one request (one sentence) at a time. */
const clients = (run: Translate, texts: string[], n = 16) => () =>
  Promise.all(Array.from({ length: n }, async (_, c) => {
    for (let i = c; i < texts.length; i += n) await run([texts[i]!]);
  }));

/**
 * Batch and 16-client throughput, medians of REPEATS runs each, taken in turns (batch, clients, batch, ...) for the
 * same reason as the latencies: measured one after the other, a drift of the VM's speed between the two decided
 * their ratio (77-106 % for the same code).
 */
async function throughputs(run: Translate, texts: string[], withClients = true): Promise<{ batch: number; concurrent: number }> {
  await run(texts.slice(0, 4));
  const batch: number[] = [];
  const concurrent: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    batch.push(await rate(texts, oneRequest(run, texts)));
    if (withClients) concurrent.push(await rate(texts, clients(run, texts)));
  }
  return { batch: median(batch), concurrent: withClients ? median(concurrent) : NaN };
}

/**
 * The floor under any engine on these files: the same onnxruntime sessions (same threads) in a bare loop in this
 * thread, encoder then TOKENS decoder runs taking the arg-max, with no worker, batcher or generation rules around it.
 */
async function onnxruntimeFloor(dir: string, threads: number): Promise<{ run: Translate; release: () => Promise<void> }> {
  const [folder] = await scanFolders(dir, precision);
  const spec = folder?.runtime;
  if (spec?.kind !== 'encoder-decoder') throw new Error(`${dir}: no loadable encoder-decoder model for the floor measurement`);
  const ids = (await ModelTokenizer.load(folder.info.path)).encode(SENTENCE);
  const model = await loadModel(spec.encoderPath, spec.decoderPath, spec.dims, spec.rules.padId,
    { intraOpThreads: threads, threadsAuto: false, spinning: settings.spinning, poolThreads: threads, skipPasses: [...settings.skipPasses, 'greedy-loop'] },
    candidatesNeeded(processorsFor(spec.rules)));
  // The engine's decoder graph (with its TopK when greedy top-k is on), its best token taken with no rules around it.
  const want = { k: candidatesNeeded(processorsFor(spec.rules)), scores: false };
  const run = async () => {
    const state = await model.begin([ids]);
    let token = spec.rules.decoderStartId;
    for (let i = 0; i < TOKENS; i++) {
      const stepped = await model.step(state, [token], want);
      token = stepped.k ? Number(stepped.ids[0]) : argmax(await stepped.logits());
    }
  };
  return { run, release: () => model.release() };
}

async function dragoman(dir: string, p: string = precision, env: Record<string, string> = {}): Promise<DragomanEngine> {
  const config = loadConfig({ ...process.env, DRAGOMAN_MODELS_DIR: dir, DRAGOMAN_PRECISION: p, DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_BEAM: '1', ...env });
  return createEngine(config, { fixedNewTokens: TOKENS });
}

type Row = [string, string, string, string];
const rows: Row[] = [];
let floorNote = '';
/** Other processes' cores each time DRAGOMAN_SPINNING=auto stopped the engine's spinning. */
const spinningOff: number[] = [];
const fmt = (x: number, unit: string) => `${x.toFixed(x >= 100 ? 0 : 1)} ${unit}`;
const ratio = (ours: number, theirs: number, lowerIsBetter: boolean) =>
  `${(lowerIsBetter ? theirs / ours : ours / theirs).toFixed(2)}x`;

async function main(): Promise<void> {
  hfEnv.allowRemoteModels = false;
  hfEnv.allowLocalModels = true;
  console.log(`model ${marianFolder} (${precision}; pipeline dtype ${dtype}), ${TOKENS} new tokens per sentence, greedy, ` +
    `${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}`);

  // ---- Marian ----
  const mDir = modelsDir(marianFolder, 'bench-en-de', { family: 'marian', source: 'en', target: 'de' });
  try {
    let t0 = performance.now();
    const engine = await dragoman(mDir);
    const engineLoad = performance.now() - t0;
    const marianInfo = engine.models().find((m) => m.status === 'ok');
    const engineThreads = marianInfo?.threads ?? engine.threads.intraOp;
    let generated = 0;
    engine.events.on('batch', (e: BatchEvent) => (generated += e.generatedTokens));
    // DRAGOMAN_SPINNING=auto: whether another process took the cores during the run (it changes what was measured).
    engine.events.on('spinning', (e: { spinning: boolean; othersCores: number }) => {
      if (!e.spinning) spinningOff.push(e.othersCores);
    });
    const ours: Translate = (texts) => engine.translate(texts, 'eng_Latn', 'deu_Latn');
    console.log(`dragoman: ${engine.threads.workers} worker(s) x ${engine.threads.intraOp} onnxruntime thread(s), spinning ${settings.spinning}, load ${engineLoad.toFixed(0)} ms, ` +
      `decoder ${marianInfo?.decoder}, ${marianInfo?.fusedAttention ?? 0} attention blocks fused, greedy top-${marianInfo?.topCandidates ?? 0} in the graph, this process on huge pages: ${((hugePageBytes() ?? 0) / 2 ** 20).toFixed(0)} MB`);
    // Process-wide (engine/amx.ts): the floor and the pipeline below run on the same onnxruntime kernels.
    console.log(`DRAGOMAN_AMX: ${engine.amx.state} (${engine.amx.detail}); the pipeline shares this process and its kernels`);
    const floor = await onnxruntimeFloor(mDir, engineThreads);
    hfEnv.localModelPath = `${mDir}/`;
    t0 = performance.now();
    const pipe = engineOnly ? undefined : await pipeline('translation', 'bench-en-de', { dtype, device: 'cpu' });
    const pipeLoad = performance.now() - t0;
    const gen = { num_beams: 1, max_new_tokens: TOKENS, min_new_tokens: TOKENS };
    const theirs: Translate = (texts) => pipe!(texts, gen);
    if (pipe) console.log(`pipeline: @huggingface/transformers pipeline('translation'), load ${pipeLoad.toFixed(0)} ms`);
    // Latency of the three sides in turns; throughput one side after the other (a side's run takes seconds).
    const [lo, lf, lt] = await latencies(pipe ? [ours, floor.run, theirs] : [ours, floor.run]);
    await floor.release();
    const [io, it] = await idleLatencies(pipe ? [ours, theirs] : [ours]);
    // What a server with default settings does: OPUS-MT's generation_config asks for beam 4. Ours only: the
    // pipeline's generate() has no beam search (it keeps one hypothesis whatever num_beams says).
    const BEAMS = 4;
    const [lob] = await latencies([(texts) => engine.translate(texts, 'eng_Latn', 'deu_Latn', { beams: BEAMS })], 4, 3);
    floorNote = `onnxruntime floor (the same files, ${engineThreads} thread(s), spinning ${settings.spinning}, encoder + ${TOKENS} decoder runs in a bare loop, one step a run, ` +
      `no engine around them), measured in turns with the rows above: p50 ${lf!.p50.toFixed(0)} ms, p95 ${lf!.p95.toFixed(0)} ms`;
    const { batch: bo, concurrent: co } = await throughputs(ours, BATCH);
    const before = generated;
    await ours(BATCH.slice(0, 8));
    if (generated - before !== 8 * TOKENS) throw new Error(`expected ${8 * TOKENS} generated tokens, engine reported ${generated - before}`);
    await engine.close();

    if (!pipe || !lt) {
      console.log(floorNote);
      console.log(`dragoman only: p50 ${lo!.p50.toFixed(0)} ms, p95 ${lo!.p95.toFixed(0)} ms, after ${IDLE_MS / 1000} s idle ${io!.toFixed(0)} ms, batch ${bo.toFixed(0)} tok/s, 16 clients ${co.toFixed(0)} tok/s`);
      return;
    }
    const { batch: bt, concurrent: ct } = await throughputs(theirs, BATCH);
    await pipe.dispose();

    rows.push(['Marian: latency p50, 20-word sentence', fmt(lo!.p50, 'ms'), fmt(lt.p50, 'ms'), ratio(lo!.p50, lt.p50, true)]);
    rows.push(['Marian: latency p95, 20-word sentence', fmt(lo!.p95, 'ms'), fmt(lt.p95, 'ms'), ratio(lo!.p95, lt.p95, true)]);
    rows.push([`Marian: latency p50, lone sentence after ${IDLE_MS / 1000} s idle`, fmt(io!, 'ms'), fmt(it!, 'ms'), ratio(io!, it!, true)]);
    rows.push([`Marian: latency p50, beam ${BEAMS} (the model's default)`, fmt(lob!.p50, 'ms'), 'no beam search', '']);
    rows.push([`Marian: batch of ${BATCH.length}, target tokens/s`, fmt(bo, 'tok/s'), fmt(bt, 'tok/s'), ratio(bo, bt, false)]);
    rows.push([`Marian: 16 clients x 2 requests of 1 sentence, tok/s`, fmt(co, 'tok/s'), fmt(ct, 'tok/s'), ratio(co, ct, false)]);
    rows.push(['Marian: concurrent / batch', `${((100 * co) / bo).toFixed(0)} %`, `${((100 * ct) / bt).toFixed(0)} %`, '']);
  } finally {
    rmSync(mDir, { recursive: true, force: true });
  }

  // ---- NLLB (tiny-nllb) ----
  if (withNllb) {
    const nDir = modelsDir(nllbFolder, 'tiny-nllb');
    try {
      const engine = await dragoman(nDir);
      const ours: Translate = (texts) => engine.translate(texts, 'eng_Latn', 'deu_Latn');
      hfEnv.localModelPath = `${nDir}/`;
      const pipe = await pipeline('translation', 'tiny-nllb', { dtype, device: 'cpu' });
      const gen = { num_beams: 1, max_new_tokens: TOKENS, min_new_tokens: TOKENS, src_lang: 'eng_Latn', tgt_lang: 'deu_Latn' };
      const theirs: Translate = (texts) => pipe(texts, gen as never);
      const [lo, lt] = await latencies([ours, theirs]);
      const { batch: bo } = await throughputs(ours, BATCH, false);
      await engine.close();
      const { batch: bt } = await throughputs(theirs, BATCH, false);
      await pipe.dispose();
      rows.push(['NLLB (tiny-nllb): latency per token, p50', fmt(lo!.p50 / TOKENS, 'ms'), fmt(lt!.p50 / TOKENS, 'ms'), ratio(lo!.p50, lt!.p50, true)]);
      rows.push([`NLLB (tiny-nllb): batch of ${BATCH.length}, target tokens/s`, fmt(bo, 'tok/s'), fmt(bt, 'tok/s'), ratio(bo, bt, false)]);
    } finally {
      rmSync(nDir, { recursive: true, force: true });
    }
  }

  printTable();
}

/** Resident memory of this process, MB. */
const rssMb = () => process.memoryUsage().rss / 2 ** 20;

/**
 * `--probe engine|pipeline <models dir>` (a child of the NLLB-600M run): one side loaded in a fresh process, its
 * resident memory before loading (node, tsx and the imports), after loading and after one sentence, and the seconds
 * from the process's start to ready, as one JSON line.
 */
async function probeSide(side: string, dir: string): Promise<void> {
  hfEnv.allowRemoteModels = false;
  hfEnv.allowLocalModels = true;
  const before = rssMb();
  const name = readdirSync(dir)[0]!;
  if (side === 'engine') {
    const engine = await dragoman(dir);
    const ready = process.uptime();
    const loaded = rssMb();
    await engine.translate([SENTENCE], 'eng_Latn', 'deu_Latn');
    const after = rssMb();
    // And beam 4 (the beam Loop's memory, when the decoder has one): twice, the second one timed.
    await engine.translate([SENTENCE], 'eng_Latn', 'deu_Latn', { beams: 4 });
    const t0 = performance.now();
    await engine.translate([SENTENCE], 'eng_Latn', 'deu_Latn', { beams: 4 });
    const beamMs = performance.now() - t0;
    const { sources: _s, targets: _t, ...info } = engine.models().find((m) => m.status === 'ok') ?? {};
    console.log(JSON.stringify({ before, loaded, after, afterBeam: rssMb(), beamMs, ready, workers: engine.threads.workers, info }));
    await engine.close();
  } else {
    hfEnv.localModelPath = `${dir}/`;
    const pipe = await pipeline('translation', name, { dtype, device: 'cpu' });
    const ready = process.uptime();
    const loaded = rssMb();
    await pipe([SENTENCE], { num_beams: 1, max_new_tokens: TOKENS, min_new_tokens: TOKENS, src_lang: 'eng_Latn', tgt_lang: 'deu_Latn' } as never);
    console.log(JSON.stringify({ before, loaded, after: rssMb(), ready, workers: 1 }));
    await pipe.dispose();
  }
}

interface Probe { before: number; loaded: number; after: number; afterBeam?: number; beamMs?: number; ready: number; workers: number; info?: Record<string, unknown> }

/**
 * `--probe engine-throughput <models dir>`: the engine with the pool shape of its environment, in a fresh process:
 * resident memory after loading, one 32-sentence request's and 16 clients' target tokens/s, and the latency of one
 * sentence, as one JSON line.
 */
async function probeThroughput(dir: string): Promise<void> {
  const engine = await dragoman(dir);
  const loaded = rssMb();
  const run: Translate = (texts) => engine.translate(texts, 'eng_Latn', 'deu_Latn');
  await run(BATCH.slice(0, 4));
  const batch = await rate(BATCH, oneRequest(run, BATCH));
  const concurrent = await rate(BATCH, clients(run, BATCH));
  const t0 = performance.now();
  await run([SENTENCE]);
  const latency = performance.now() - t0;
  console.log(JSON.stringify({ loaded, after: rssMb(), batch, concurrent, latency, workers: engine.threads.workers, threads: engine.threads.intraOp }));
  await engine.close();
}

/**
 * One session serving every request (one worker, both cores as its onnxruntime threads) against one session per
 * worker (two workers of one thread): each shape loaded in a process of its own, the two in turns REPEATS times, so the
 * machine's load falls on both alike. Workers are threads, and an onnxruntime-node session cannot be handed to
 * another thread, so one session for several workers' requests is one worker.
 */
async function poolShapeRows(dir: string): Promise<void> {
  const shapes = [{ workers: 1, threads: 2 }, { workers: 2, threads: 1 }];
  const runs: { loaded: number; after: number; batch: number; concurrent: number; latency: number }[][] = shapes.map(() => []);
  for (let r = 0; r < REPEATS; r++) {
    for (const [i, shape] of shapes.entries()) {
      const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--probe', 'engine-throughput', dir,
        '--precision', precision, '--tokens', String(TOKENS)], {
        env: { ...process.env, DRAGOMAN_WORKERS: String(shape.workers), DRAGOMAN_INTRA_OP_THREADS: String(shape.threads) }, maxBuffer: 1 << 26,
      }).toString();
      const result = JSON.parse(out.trim().split('\n').pop()!) as (typeof runs)[number][number];
      runs[i]!.push(result);
      console.log(`${shape.workers} worker(s) x ${shape.threads} thread(s), run ${r + 1}: ${JSON.stringify(result)} (load ${loadavg()[0]!.toFixed(1)})`);
    }
  }
  const med = (i: number, f: (x: (typeof runs)[number][number]) => number) => median(runs[i]!.map(f));
  const label = (i: number) => `${shapes[i]!.workers} worker(s) x ${shapes[i]!.threads} thread(s)`;
  console.log(`| NLLB-600M, medians of ${REPEATS} runs in turns | ${label(0)} (one session) | ${label(1)} (a session per worker) | second / first |`);
  console.log('|---|---|---|---|');
  const line = (name: string, f: (x: (typeof runs)[number][number]) => number, unit: string) =>
    console.log(`| ${name} | ${fmt(med(0, f), unit)} | ${fmt(med(1, f), unit)} | ${(med(1, f) / med(0, f)).toFixed(2)}x |`);
  line(`batch of ${BATCH.length}, target tokens/s`, (x) => x.batch, 'tok/s');
  line('16 clients x 2 requests of 1 sentence, tok/s', (x) => x.concurrent, 'tok/s');
  line('latency of one 20-word sentence', (x) => x.latency, 'ms');
  line('resident memory after load, whole process', (x) => x.loaded, 'MB');
  line('resident memory after the runs, whole process', (x) => x.after, 'MB');
}

/**
 * The NLLB-600M rows: a random-weight model of NLLB-200-distilled-600M's size, Dragoman and the pipeline on the same
 * files, TOKENS (30) new tokens a sentence forced as for the Marian model (random weights never end a sentence).
 * Memory and start-up are measured in child processes (one side each, nothing else loaded); the graph cache starts
 * empty, so the first engine child pays the graph passes and the second reads their cache, as a restart does.
 */
async function nllb600mRows(folder: string): Promise<void> {
  hfEnv.allowRemoteModels = false;
  hfEnv.allowLocalModels = true;
  const name = 'bench-nllb-600m';
  const onnxDir = join(folder, 'onnx');
  const suffix = precision === 'int8' ? '_quantized' : '';
  const fileMb = ['encoder_model', 'decoder_model_merged'].reduce((a, f) => a + statSync(join(onnxDir, `${f}${suffix}.onnx`)).size, 0) / 2 ** 20;
  console.log(`NLLB-600M: ${folder} (${precision}, files ${fileMb.toFixed(0)} MB; pipeline dtype ${dtype}), ${TOKENS} new tokens per sentence, ` +
    `${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}`);
  const dir = modelsDir(folder, name);
  const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-bench-data-'));
  process.env.DRAGOMAN_DATA_DIR = dataDir;
  const probeChild = (side: string): Probe => {
    const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--probe', side, dir,
      '--precision', precision, '--tokens', String(TOKENS)], { env: process.env, maxBuffer: 1 << 26 }).toString();
    return JSON.parse(out.trim().split('\n').pop()!) as Probe;
  };
  try {
    if (poolShapes) {
      await poolShapeRows(dir);
      return;
    }
    const first = probeChild('engine');
    const restart = probeChild('engine');
    const theirProbe = engineOnly ? undefined : probeChild('pipeline');
    console.log(`probes (MB before load / after load / after 1 sentence, s to ready): engine first start ${JSON.stringify(first)}; ` +
      `engine restart ${JSON.stringify({ ...restart, info: undefined })}; pipeline ${JSON.stringify(theirProbe)}`);

    const engine = await dragoman(dir);
    const info = engine.models().find((m) => m.status === 'ok');
    const threads = info?.threads ?? engine.threads.intraOp;
    let generated = 0;
    engine.events.on('batch', (e: BatchEvent) => (generated += e.generatedTokens));
    engine.events.on('spinning', (e: { spinning: boolean; othersCores: number }) => {
      if (!e.spinning) spinningOff.push(e.othersCores);
    });
    console.log(`dragoman: ${engine.threads.workers} worker(s) x ${threads} onnxruntime thread(s), spinning ${settings.spinning}, decoder ${info?.decoder}, ` +
      `signed weights ${info?.signedWeights}, ${info?.fusedAttention ?? 0} attention blocks fused, greedy top-${info?.topCandidates ?? 0} in the graph, ` +
      `greedy Loop ${info?.greedyLoop}, beam Loop ${info?.beamLoop}, output vocabulary ${info?.outputSubset ? 'target' : 'full'}; DRAGOMAN_AMX ${engine.amx.state}`);
    const ours: Translate = (texts) => engine.translate(texts, 'eng_Latn', 'deu_Latn');
    const floor = await onnxruntimeFloor(dir, threads);
    hfEnv.localModelPath = `${dir}/`;
    const pipe = engineOnly ? undefined : await pipeline('translation', name, { dtype, device: 'cpu' });
    const gen = { num_beams: 1, max_new_tokens: TOKENS, min_new_tokens: TOKENS, src_lang: 'eng_Latn', tgt_lang: 'deu_Latn' };
    const theirs: Translate = (texts) => pipe!(texts, gen as never);
    const [lo, lf, lt] = await latencies(pipe ? [ours, floor.run, theirs] : [ours, floor.run], 4, 5);
    await floor.release();
    // Printed as it comes: a run on a loaded machine takes tens of minutes.
    console.log(`latency p50/p95 ms: dragoman ${lo!.p50.toFixed(0)}/${lo!.p95.toFixed(0)}, floor ${lf!.p50.toFixed(0)}/${lf!.p95.toFixed(0)}` +
      (lt ? `, pipeline ${lt.p50.toFixed(0)}/${lt.p95.toFixed(0)}` : ''));
    // A Japanese target beside the German one, and both again on an engine computing every piece of the output layer
    // (DRAGOMAN_VOCABULARY=full), in turns: what the output vocabulary's selection earns, in the same run.
    const full = await dragoman(dir, precision, { DRAGOMAN_VOCABULARY: 'full' });
    const pipeJa: Translate = (texts) => pipe!(texts, { ...gen, tgt_lang: 'jpn_Jpan' } as never);
    const [lfd, loj, lfj, ltj] = await latencies([
      (texts) => full.translate(texts, 'eng_Latn', 'deu_Latn'), (texts) => engine.translate(texts, 'eng_Latn', 'jpn_Jpan'),
      (texts) => full.translate(texts, 'eng_Latn', 'jpn_Jpan'), ...(pipe ? [pipeJa] : []),
    ], 4, 5);
    await full.close();
    console.log(`latency p50/p95 ms: full vocabulary ${lfd!.p50.toFixed(0)}/${lfd!.p95.toFixed(0)}; Japanese target ${loj!.p50.toFixed(0)}/${loj!.p95.toFixed(0)}, ` +
      `full vocabulary ${lfj!.p50.toFixed(0)}/${lfj!.p95.toFixed(0)}` + (ltj ? `, pipeline ${ltj.p50.toFixed(0)}/${ltj.p95.toFixed(0)}` : ''));
    const BEAMS = 4;
    const [lob] = await latencies([(texts) => engine.translate(texts, 'eng_Latn', 'deu_Latn', { beams: BEAMS })], 2, 3);
    const { batch: bo, concurrent: co } = await throughputs(ours, BATCH);
    const before = generated;
    await ours(BATCH.slice(0, 4));
    if (generated - before !== 4 * TOKENS) throw new Error(`expected ${4 * TOKENS} generated tokens, engine reported ${generated - before}`);
    await engine.close();
    floorNote = `NLLB-600M onnxruntime floor (the same files, ${threads} thread(s), spinning ${settings.spinning}, encoder + ${TOKENS} decoder runs in a bare loop, ` +
      `one step a run, no engine around them), measured in turns with the rows above: p50 ${lf!.p50.toFixed(0)} ms, p95 ${lf!.p95.toFixed(0)} ms; ` +
      `engine p50 / floor p50 = ${(lo!.p50 / lf!.p50).toFixed(2)}`;
    const perWorker = (p: Probe) => (p.loaded - p.before) / p.workers;
    const memNote = `int8 files ${fileMb.toFixed(0)} MB, goal per worker <= ${(1.3 * fileMb).toFixed(0)} MB`;
    if (!pipe || !lt || !theirProbe) {
      console.log(floorNote);
      console.log(`dragoman only: p50 ${lo!.p50.toFixed(0)} ms, p95 ${lo!.p95.toFixed(0)} ms, beam ${BEAMS} p50 ${lob!.p50.toFixed(0)} ms, batch ${bo.toFixed(0)} tok/s, ` +
        `16 clients ${co.toFixed(0)} tok/s, per worker ${perWorker(restart).toFixed(0)} MB (${memNote}), process ${restart.loaded.toFixed(0)} MB, ready ${restart.ready.toFixed(1)} s`);
      return;
    }
    const { batch: bt, concurrent: ct } = await throughputs(theirs, BATCH);
    await pipe.dispose();
    rows.push(['NLLB-600M: latency p50, 20-word sentence', fmt(lo!.p50, 'ms'), fmt(lt.p50, 'ms'), ratio(lo!.p50, lt.p50, true)]);
    rows.push(['NLLB-600M: latency p95, 20-word sentence', fmt(lo!.p95, 'ms'), fmt(lt.p95, 'ms'), ratio(lo!.p95, lt.p95, true)]);
    rows.push(['NLLB-600M: latency p50, full vocabulary', fmt(lfd!.p50, 'ms'), fmt(lt.p50, 'ms'), ratio(lfd!.p50, lt.p50, true)]);
    rows.push(['NLLB-600M: latency p50, Japanese target', fmt(loj!.p50, 'ms'), fmt(ltj!.p50, 'ms'), ratio(loj!.p50, ltj!.p50, true)]);
    rows.push(['NLLB-600M: latency p95, Japanese target', fmt(loj!.p95, 'ms'), fmt(ltj!.p95, 'ms'), ratio(loj!.p95, ltj!.p95, true)]);
    rows.push(['NLLB-600M: latency p50, Japanese target, full vocabulary', fmt(lfj!.p50, 'ms'), fmt(ltj!.p50, 'ms'), ratio(lfj!.p50, ltj!.p50, true)]);
    rows.push([`NLLB-600M: latency p50, beam ${BEAMS}`, fmt(lob!.p50, 'ms'), 'no beam search', '']);
    rows.push([`NLLB-600M: batch of ${BATCH.length}, target tokens/s`, fmt(bo, 'tok/s'), fmt(bt, 'tok/s'), ratio(bo, bt, false)]);
    rows.push(['NLLB-600M: 16 clients x 2 requests of 1 sentence, tok/s', fmt(co, 'tok/s'), fmt(ct, 'tok/s'), ratio(co, ct, false)]);
    rows.push(['NLLB-600M: resident memory after load, MB, per worker', fmt(perWorker(restart), 'MB'), fmt(perWorker(theirProbe), 'MB'), ratio(perWorker(restart), perWorker(theirProbe), true)]);
    rows.push(['NLLB-600M: resident memory after load, MB, whole process', fmt(restart.loaded, 'MB'), fmt(theirProbe.loaded, 'MB'), ratio(restart.loaded, theirProbe.loaded, true)]);
    rows.push(['NLLB-600M: resident memory after 1 sentence, MB, whole process', fmt(restart.after, 'MB'), fmt(theirProbe.after, 'MB'), ratio(restart.after, theirProbe.after, true)]);
    if (restart.afterBeam) rows.push(['NLLB-600M: resident memory after beam 4, MB, whole process', fmt(restart.afterBeam, 'MB'), 'no beam search', '']);
    rows.push(['NLLB-600M: start-up to ready, s', fmt(restart.ready, 's'), fmt(theirProbe.ready, 's'), ratio(restart.ready, theirProbe.ready, true)]);
    rows.push(['NLLB-600M: start-up to ready, first start (graph passes), s', fmt(first.ready, 's'), fmt(theirProbe.ready, 's'), ratio(first.ready, theirProbe.ready, true)]);
    floorNote += `\n${memNote}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---- LLM-0.6B (scripts/make-bench-llm.py) ----

const LLM_PAIR = ['eng_Latn', 'deu_Latn'] as const;
const llmName = 'bench-llm-0.6b';

/** The folder's dragoman.json prompt for a sentence: the user message both sides put in the chat template. */
async function llmPrompt(dir: string, p: string): Promise<{ folder: ModelFolder; message: (text: string) => string }> {
  const [folder] = await scanFolders(dir, p as PrecisionSetting);
  if (folder?.runtime?.kind !== 'decoder-only' || !folder.prompt) throw new Error(`${dir}: no loadable decoder-only model (${folder?.info.problem ?? 'none found'})`);
  const prompt = folder.prompt;
  return {
    folder,
    message: (text) => {
      const content = userContent(prompt, LLM_PAIR[0], LLM_PAIR[1], text);
      if (typeof content !== 'string') throw new Error('the benchmark model\'s dragoman.json has a structured prompt; the pipeline rows need a template');
      return content;
    },
  };
}

/** A graph's bytes with its external weights. */
const graphMb = (path: string) => (statSync(path).size + (existsSync(`${path}_data`) ? statSync(`${path}_data`).size : 0)) / 2 ** 20;

/**
 * The floor under any engine on these files: one onnxruntime session with the engine's options and threads, in a bare
 * loop in a process of its own (`--probe llm-floor`; in this process, beside the loaded pipeline, the same loop took
 * ~3x the engine's p50 on a loaded machine, and onnxruntime-node runs a session synchronously on the calling thread,
 * which the latency turns would also stall): the prompt's prefill (its last logits give the first token), then TOKENS - 1 decoder runs, each
 * feeding the previous run's present as past and taking the arg-max: the TOKENS new tokens both sides generate.
 */
async function llmFloor(dir: string, p: string, threads: number): Promise<{ run: Translate; release: () => Promise<void> }> {
  const { folder, message } = await llmPrompt(dir, p);
  const spec = folder.runtime as DecoderOnlySpec;
  const tokenizer = await ModelTokenizer.load(folder.info.path);
  const ids = tokenizer.chat(message(SENTENCE), folder.prompt!.options);
  const session = await ort.InferenceSession.create(spec.modelPath,
    sessionOptions({ intraOpThreads: threads, threadsAuto: false, spinning: settings.spinning, poolThreads: threads }, threads));
  const { layers, heads, headDim } = spec.dims;
  const i64 = (xs: number[], dims: number[]) => new ort.Tensor('int64', BigInt64Array.from(xs, BigInt), dims);
  const lastArgmax = (logits: ort.Tensor) => {
    const vocab = logits.dims[2]!;
    const data = logits.data as Float32Array;
    return argmax(data.subarray(data.length - vocab));
  };
  const run = async () => {
    const past: Record<string, ort.Tensor> = {};
    for (let l = 0; l < layers; l++) for (const kv of ['key', 'value']) past[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, heads, 0, headDim]);
    let out = await session.run({
      input_ids: i64(ids, [1, ids.length]), attention_mask: i64(ids.map(() => 1), [1, ids.length]),
      position_ids: i64(ids.map((_, i) => i), [1, ids.length]), ...past,
    });
    let token = lastArgmax(out.logits!);
    for (let t = 1; t < TOKENS; t++) {
      const length = ids.length + t;
      for (let l = 0; l < layers; l++) for (const kv of ['key', 'value']) past[`past_key_values.${l}.${kv}`] = out[`present.${l}.${kv}`]!;
      out = await session.run({
        input_ids: i64([token], [1, 1]), attention_mask: i64(Array.from({ length }, () => 1), [1, length]),
        position_ids: i64([length - 1], [1, 1]), ...past,
      });
      token = lastArgmax(out.logits!);
    }
  };
  return { run, release: () => session.release() };
}

/** The text-generation pipeline on the folder's files: each text as one user message, greedy, exactly TOKENS new tokens. */
async function llmPipeline(dir: string, p: string): Promise<{ run: Translate; dispose: () => Promise<unknown> }> {
  const { message } = await llmPrompt(dir, p);
  hfEnv.localModelPath = `${dir}/`;
  const pipe = await pipeline('text-generation', llmName, { dtype: dtypeOf(p) as 'q8', device: 'cpu' });
  const gen = { do_sample: false, num_beams: 1, max_new_tokens: TOKENS, min_new_tokens: TOKENS };
  return { run: (texts) => pipe(texts.map((t) => [{ role: 'user', content: message(t) }]), gen as never), dispose: () => pipe.dispose() };
}

/**
 * `--probe llm-engine|llm-pipeline|llm-floor <models dir> --precision p`: as probeSide, for the LLM; llm-floor
 * (`--threads n`) prints the floor's latency p50 and p95 over 3 x --rounds sentences after 2 to warm up.
 */
async function probeLlm(side: string, dir: string): Promise<void> {
  hfEnv.allowRemoteModels = false;
  hfEnv.allowLocalModels = true;
  const before = rssMb();
  if (side === 'llm-floor') {
    const floor = await llmFloor(dir, precision, Number(threadsFlag));
    const [lf] = await latencies([floor.run], Number(roundsFlag ?? 4), 3);
    console.log(JSON.stringify(lf));
    await floor.release();
  } else if (side === 'llm-engine') {
    const engine = await dragoman(dir, precision);
    const ready = process.uptime();
    const loaded = rssMb();
    await engine.translate([SENTENCE], ...LLM_PAIR);
    const { sources: _s, targets: _t, ...info } = engine.models().find((m) => m.status === 'ok') ?? {};
    console.log(JSON.stringify({ before, loaded, after: rssMb(), ready, workers: engine.threads.workers, info }));
    await engine.close();
  } else {
    const pipe = await llmPipeline(dir, precision);
    const ready = process.uptime();
    const loaded = rssMb();
    await pipe.run([SENTENCE]);
    console.log(JSON.stringify({ before, loaded, after: rssMb(), ready, workers: 1 }));
    await pipe.dispose();
  }
}

/**
 * The LLM-0.6B rows: a random-weight model of Qwen3-0.6B's size, Dragoman and the text-generation pipeline on the same
 * files and the same user message in the same chat template, TOKENS (30) new tokens a sentence forced on both sides
 * (random weights never end an answer), greedy; int4 then int8 (or the --precision given). Memory and start-up in
 * child processes, one side each, as for NLLB-600M.
 */
async function llmRows(folder: string): Promise<void> {
  hfEnv.allowRemoteModels = false;
  hfEnv.allowLocalModels = true;
  const dir = modelsDir(folder, llmName);
  const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-bench-data-'));
  process.env.DRAGOMAN_DATA_DIR = dataDir;
  // The rewritten graph (docs/engine.md, "Decoder-only translators") is made once and kept across runs, as a server's
  // graph cache keeps it across restarts: start-up and memory are measured with it made.
  process.env.DRAGOMAN_GRAPH_CACHE_DIR ??= join(tmpdir(), 'dragoman-bench-graphs');
  const rounds = Number(roundsFlag ?? 4);
  try {
    for (const p of precisionFlag ? [precisionFlag] : ['int4', 'int8']) {
      const file = join(folder, 'onnx', { int4: 'model_q4.onnx', int8: 'model_quantized.onnx', fp32: 'model.onnx' }[p]!);
      const fileMb = graphMb(file);
      console.log(`LLM-0.6B ${p}: ${file} (${fileMb.toFixed(0)} MB; pipeline dtype ${dtypeOf(p)}), ${TOKENS} new tokens per sentence, ` +
        `${availableParallelism()} cores (${cpus()[0]?.model ?? '?'}), node ${process.version}, throughput medians of ${REPEATS}, latency ${rounds} rounds of 3`);
      const probeChild = <T = Probe>(side: string, ...more: string[]): T => {
        const out = execFileSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--probe', side, dir,
          '--precision', p, '--tokens', String(TOKENS), ...more], { env: process.env, maxBuffer: 1 << 26 }).toString();
        return JSON.parse(out.trim().split('\n').pop()!) as T;
      };
      probeChild('llm-engine'); // makes the rewritten graph when the cache has none yet
      const ourProbe = probeChild('llm-engine');
      const theirProbe = engineOnly ? undefined : probeChild('llm-pipeline');
      console.log(`probes (MB before load / after load / after 1 sentence, s to ready): engine ${JSON.stringify(ourProbe)}; pipeline ${JSON.stringify(theirProbe)}`);

      const engine = await dragoman(dir, p);
      const info = engine.models().find((m) => m.status === 'ok');
      if (info?.precision !== p) throw new Error(`the engine runs ${info?.precision} files, not ${p}`);
      const threads = info.threads ?? engine.threads.intraOp;
      let generated = 0;
      engine.events.on('batch', (e: BatchEvent) => (generated += e.generatedTokens));
      engine.events.on('spinning', (e: { spinning: boolean; othersCores: number }) => {
        if (!e.spinning) spinningOff.push(e.othersCores);
      });
      console.log(`dragoman: ${engine.threads.workers} worker(s) x ${threads} onnxruntime thread(s), spinning ${settings.spinning}, decoder ${info.decoder}`);
      const ours: Translate = (texts) => engine.translate(texts, ...LLM_PAIR);
      const pipe = engineOnly ? undefined : await llmPipeline(dir, p);
      const [lo, lt] = await latencies(pipe ? [ours, pipe.run] : [ours], rounds, 3);
      // The floor in its own process, right after (this one idle).
      const lf = probeChild<{ p50: number; p95: number }>('llm-floor', '--threads', String(threads), '--rounds', String(rounds));
      console.log(`latency p50/p95 ms: dragoman ${lo!.p50.toFixed(0)}/${lo!.p95.toFixed(0)}, floor ${lf!.p50.toFixed(0)}/${lf!.p95.toFixed(0)}` +
        (lt ? `, pipeline ${lt.p50.toFixed(0)}/${lt.p95.toFixed(0)}` : ''));
      const { batch: bo, concurrent: co } = await throughputs(ours, BATCH);
      console.log(`dragoman: batch ${bo.toFixed(1)} tok/s, 16 clients ${co.toFixed(1)} tok/s`);
      const before = generated;
      await ours(BATCH.slice(0, 2));
      if (generated - before !== 2 * TOKENS) throw new Error(`expected ${2 * TOKENS} generated tokens, engine reported ${generated - before}`);
      await engine.close();
      const perWorker = (x: Probe) => (x.loaded - x.before) / x.workers;
      const L = `LLM-0.6B: ${p},`;
      const floorRow: Row = [`${L} onnxruntime floor p50 (prefill + ${TOKENS - 1} decoder runs, bare loop, own process)`, fmt(lf!.p50, 'ms'), '',
        `engine p50 / floor p50 = ${(lo!.p50 / lf!.p50).toFixed(2)}`];
      if (!pipe || !lt || !theirProbe) {
        rows.push([`${L} latency p50, 20-word sentence`, fmt(lo!.p50, 'ms'), '', ''], [`${L} latency p95, 20-word sentence`, fmt(lo!.p95, 'ms'), '', ''],
          [`${L} batch of ${BATCH.length}, target tokens/s`, fmt(bo, 'tok/s'), '', ''], [`${L} 16 clients x 2 requests of 1 sentence, tok/s`, fmt(co, 'tok/s'), '', ''],
          [`${L} resident memory after load, MB, per worker`, fmt(perWorker(ourProbe), 'MB'), '', `files ${fileMb.toFixed(0)} MB`], floorRow);
        continue;
      }
      const { batch: bt, concurrent: ct } = await throughputs(pipe.run, BATCH);
      console.log(`pipeline: batch ${bt.toFixed(1)} tok/s, 16 clients ${ct.toFixed(1)} tok/s`);
      await pipe.dispose();
      rows.push([`${L} latency p50, 20-word sentence`, fmt(lo!.p50, 'ms'), fmt(lt.p50, 'ms'), ratio(lo!.p50, lt.p50, true)]);
      rows.push([`${L} latency p95, 20-word sentence`, fmt(lo!.p95, 'ms'), fmt(lt.p95, 'ms'), ratio(lo!.p95, lt.p95, true)]);
      rows.push([`${L} batch of ${BATCH.length}, target tokens/s`, fmt(bo, 'tok/s'), fmt(bt, 'tok/s'), ratio(bo, bt, false)]);
      rows.push([`${L} 16 clients x 2 requests of 1 sentence, tok/s`, fmt(co, 'tok/s'), fmt(ct, 'tok/s'), ratio(co, ct, false)]);
      rows.push([`${L} resident memory after load, MB, per worker (files ${fileMb.toFixed(0)} MB)`, fmt(perWorker(ourProbe), 'MB'), fmt(perWorker(theirProbe), 'MB'),
        ratio(perWorker(ourProbe), perWorker(theirProbe), true)]);
      rows.push([`${L} resident memory after load, MB, whole process`, fmt(ourProbe.loaded, 'MB'), fmt(theirProbe.loaded, 'MB'), ratio(ourProbe.loaded, theirProbe.loaded, true)]);
      rows.push([`${L} start-up to ready, s`, fmt(ourProbe.ready, 's'), fmt(theirProbe.ready, 's'), ratio(ourProbe.ready, theirProbe.ready, true)]);
      rows.push(floorRow);
    }
    floorNote = `LLM-0.6B: per worker = (resident after load - before load) / workers; goal <= 1.3x the files.`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function printTable(): void {
  const header: Row = ['measure', 'dragoman engine', 'transformers.js pipeline', 'dragoman advantage'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: Row) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  // An LLM's session (runtime/causal-lm.ts) has no non-spinning twin: the contention readings do not apply to it.
  const contention = settings.spinning !== 'auto' ? '' : llm06b ? 'spinning auto: the LLM session spins within runs (it has no non-spinning twin)' : spinningOff.length === 0
    ? 'spinning auto: no other process took the cores during the run (the engine spun within runs throughout)'
    : `spinning auto: other processes took the cores ${spinningOff.length} time(s) (${spinningOff.map((c) => c.toFixed(2)).join(', ')} cores): ` +
      'the engine stopped spinning then, so its rows were measured on a shared machine';
  console.log(['', line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line), '', floorNote, contention].join('\n'));
}

if (probe?.startsWith('llm-')) {
  await probeLlm(probe, positional[0]!);
} else if (probe === 'engine-throughput') {
  await probeThroughput(positional[0]!);
} else if (probe) {
  await probeSide(probe, positional[0]!);
} else if (llm06b) {
  await llmRows(resolve(llm06b));
  if (rows.length) printTable();
} else if (nllb600m) {
  await nllb600mRows(resolve(nllb600m));
  if (rows.length) printTable();
} else {
  await main();
}
