// One encoder-decoder model on onnxruntime: the encoder once per batch, then the decoder (optimum's merged file,
// cut in two by decoder-split.ts unless that is off or impossible) step by step with its KV cache. Search strategies
// (greedy.ts, beam.ts) drive it; this file knows tensors, not tokens' meaning.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import ort from 'onnxruntime-node';
import { fuseAttention } from '../graph/attention-fusion.ts';
import { CpuContention } from './contention.ts';
import { StepSessions } from './step-sessions.ts';
import { splitMergedDecoder } from '../graph/decoder-split.ts';
import { graphIoProblem } from '../model/graph-io.ts';
import { assertUnchanged, fileStamp } from '../model/file-stamp.ts';
import { BEAM_LOOP, withSearchLoops } from '../graph/beam-loop.ts';
import { LOOP, withGreedyLoop } from '../graph/greedy-loop.ts';
import { signedStepModel, stepModelInThread, withSearch } from '../graph/step-model.ts';
import { SEARCH, TOP_IDS } from '../graph/top-candidates.ts';
import type { DecoderDims } from '../model/family.ts';
import type { SessionSettings } from '../pool/protocol.ts';
import type { LoadedRuntime } from '../types.ts';

export interface Encoded {
  hidden: ort.Tensor;
  mask: ort.Tensor;
  rows: number;
}

/** Decoder KV cache of a batch; encoder K/V are kept from step 0 (the cached branch may return them empty). */
export interface DecoderState {
  rows: number;
  encoded: Encoded;
  past: Record<string, ort.Tensor>;
  step: number;
}

/**
 * Below this decoder size a step's matrices are too small for a second thread to pay: waking it costs more than it
 * saves (tiny-nllb, 1.6 MB, 32 tokens, one process A/B: 1 thread 10.0-14.3 ms vs 2 threads 14.6-17.1 ms for one
 * sentence, 59 vs 61 ms for 32), while OPUS-MT-base (56 MB int8) gains from two.
 */
export const SMALL_DECODER_BYTES = 16 * 1024 * 1024;

/**
 * DRAGOMAN_SPINNING=auto gives a decoder at most this large a second (non-spinning) session for shared machines:
 * OPUS-MT models (56 MB int8, ~200 MB fp32) but not NLLB-200, whose second session would cost gigabytes.
 */
export const MAX_TWIN_DECODER_BYTES = 256 * 1024 * 1024;

/**
 * Beam search's Loop (beam-loop.ts) sits beside greedy search's in the step model's one session, on the same weights.
 * Its cost, one worker, resident after single beam-4 sentences: int8 files +20-35 MB (bench-marian-base, 56 MB decoder
 * file) and +25-50 MB (a random model of OPUS-MT-big's size, 163 MB); fp32 +150-180 MB (bench-marian-base, 221 MB:
 * onnxruntime keeps fp32 products' packed weights once per Loop). So an int8 decoder file up to the first bound gets
 * it (OPUS-MT base and big, not NLLB-200, which was not measured), an fp32 one up to the second (small models only).
 */
export const MAX_BEAM_LOOP_INT8_DECODER_BYTES = 256 * 1024 * 1024;
export const MAX_BEAM_LOOP_FP32_DECODER_BYTES = 64 * 1024 * 1024;

/** Whether this decoder file gets beam search's Loop (int8 is the layout's `*_quantized.onnx`). */
export function beamLoopFits(decoderPath: string): boolean {
  const bound = /_quantized\.onnx$/.test(decoderPath) ? MAX_BEAM_LOOP_INT8_DECODER_BYTES : MAX_BEAM_LOOP_FP32_DECODER_BYTES;
  return statSync(decoderPath).size <= bound;
}

/** onnxruntime threads for a model: as configured, or one for a small model when the count is Dragoman's choice. */
export function threadsFor(settings: SessionSettings, decoderBytes: number): number {
  return settings.threadsAuto && decoderBytes < SMALL_DECODER_BYTES ? 1 : settings.intraOpThreads;
}

export function sessionOptions(settings: SessionSettings, threads = settings.intraOpThreads): ort.InferenceSession.SessionOptions {
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    // Only errors: onnxruntime's warnings are plain text on stderr, and our logs are JSON lines.
    logSeverityLevel: 3,
    // 'run': threads spin between the operators of a run (a decoder step has ~140 with attention fused, ~270
    // without; waking a sleeping thread for each parallel one costs more than the work) and stop when it ends, so the
    // JS between steps and other processes get the cores back. Measured in src/engine/README.md.
    extra: {
      session: {
        intra_op: { allow_spinning: settings.spinning === 'off' ? '0' : '1' },
        inter_op: { allow_spinning: '0' },
        // 'auto' opens its sessions as 'run'; the step model gets a non-spinning twin when the cores are shared.
        force_spinning_stop: settings.spinning === 'run' || settings.spinning === 'auto' ? '1' : '0',
      },
    },
  };
}

/** How the decoder runs: optimum's merged file as it is, or cut in two without its `If` (decoder-split.ts). */
type Decoder =
  | { kind: 'merged'; session: ort.InferenceSession }
  | {
    kind: 'split'; withPast: ort.InferenceSession; crossKv: ort.InferenceSession; signedWeights: boolean; fusedAttention: number;
    /** The with-past model's bytes again, exactly as `withPast` was made from them (for a twin with other options). */
    rebuild: () => Promise<Uint8Array>;
    /** k of the `top_ids` output (top-candidates.ts); 0 when the model has none. */
    topCandidates: number;
    /** It has beam search's outputs (SEARCH of top-candidates.ts) and DRAGOMAN_BEAM_TOPK is on. */
    beamCandidates: boolean;
    /** The step model is greedy-loop.ts's Loop (every run feeds its inputs), with the logits' length; else undefined. */
    loop: { vocab: number } | undefined;
    /** The step model holds beam search's Loop beside greedy search's (beam-loop.ts's withSearchLoops). */
    beamLoop: boolean;
  };

/** Feeds of the search inputs (top-candidates.ts): k best logits per row, statistics over statsLen of each row. */
function searchFeeds(k: number, statsLen: number): Record<string, ort.Tensor> {
  return {
    [SEARCH.k]: new ort.Tensor('int64', BigInt64Array.of(BigInt(k)), [1]),
    [SEARCH.statsLen]: new ort.Tensor('int64', BigInt64Array.of(BigInt(statsLen)), [1]),
  };
}

/** What a run that reads neither (logits only) feeds them: one candidate, statistics of one element. */
const NO_SEARCH = searchFeeds(1, 1);

/** Beyond any vocabulary: Slice clamps it to the row. */
const WHOLE_ROW = 2 ** 40;
/** greedy-loop.ts's `logits` scan output: whole rows (beam search's check), or none. */
const wholeRowLength = new ort.Tensor('int64', BigInt64Array.of(BigInt(WHOLE_ROW)), [1]);
const noLogits = new ort.Tensor('int64', BigInt64Array.of(0n), [1]);

/** The feeds a session declares (the split models take fewer inputs than the merged one). */
function feedsFor(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Record<string, ort.Tensor> {
  return Object.fromEntries(session.inputNames.map((n) => [n, feeds[n]!]));
}

/** Test feeds with the self-attention cache under a Loop model's `prefix` (checkGreedyLoop, checkBeamLoop). */
function cacheUnder(prefix: string, feeds: Record<string, ort.Tensor>): Record<string, ort.Tensor> {
  return Object.fromEntries(Object.entries(feeds).map(([name, t]) => [/\.decoder\./.test(name) ? prefix + name : name, t]));
}

/**
 * A Loop model's run in its session's input order: its own inputs from `own`, the self-attention cache (named under
 * `prefix`) and the cross-attention K/V from `past` (greedy-loop.ts and beam-loop.ts name the rest as the step model does),
 * and the other Loop's inputs, if the model has two, as idleLoopInput gives them.
 */
function loopRun(session: ort.InferenceSession, own: Record<string, ort.Tensor>, past: Record<string, ort.Tensor>, prefix: string, dims: DecoderDims) {
  const run: Record<string, ort.Tensor> = {};
  for (const name of session.inputNames) {
    run[name] = own[name] ?? (name.startsWith(prefix) ? past[name.slice(prefix.length)] : past[name] ?? idleLoopInput(name, dims))!;
  }
  return run;
}

const emptyOf = (type: 'int64' | 'float32' | 'bool', dims: number[]) =>
  new ort.Tensor(type, type === 'int64' ? new BigInt64Array(0) : type === 'bool' ? new Uint8Array(0) : new Float32Array(0), dims);
const int64Of = (value: number, dims: number[]) => new ort.Tensor('int64', BigInt64Array.of(BigInt(value)), dims);

/** idleLoopInput's tensors, made once per input name and cache shape (every Loop run feeds them). */
const idleInputs = new Map<string, ort.Tensor | undefined>();

/**
 * What a run of the search Loops model (beam-loop.ts's withSearchLoops) feeds the Loop it does not run: zero steps and
 * empty tensors of the declared ranks (a Loop of zero steps only passes them on); undefined for any other input.
 */
export function idleLoopInput(name: string, dims: DecoderDims): ort.Tensor | undefined {
  const key = `${name}:${dims.heads}:${dims.headDim}`;
  if (!idleInputs.has(key)) idleInputs.set(key, makeIdleLoopInput(name, dims));
  return idleInputs.get(key);
}

function makeIdleLoopInput(name: string, dims: DecoderDims): ort.Tensor | undefined {
  if (/^(loop|beam)\/past_key_values\.\d+\.decoder\./.test(name)) return emptyOf('float32', [0, dims.heads, 0, dims.headDim]);
  switch (name) {
    case LOOP.steps: case BEAM_LOOP.steps: return int64Of(0, []);
    case LOOP.ids: case BEAM_LOOP.ids: return emptyOf('int64', [0, 1]);
    case LOOP.done: case BEAM_LOOP.done: return emptyOf('bool', [0, 1]);
    case LOOP.ban: case BEAM_LOOP.ban: case BEAM_LOOP.scores: return emptyOf('float32', [0]);
    case LOOP.logitsLen: return int64Of(0, [1]);
    case BEAM_LOOP.beams: return int64Of(1, [1]);
    case BEAM_LOOP.from: return emptyOf('int64', [0]);
    case BEAM_LOOP.lastLogits: return emptyOf('float32', [0, 1, 0]);
    default: return undefined;
  }
}

/**
 * `candidates`: greedy search's top-k (candidatesNeeded of the model's rules; 0 = none). Only the split decoder gets the
 * search outputs: the merged file is the fallback for what could not be cut, left as it is.
 */
async function openDecoder(
  path: string, stamp: string, options: ort.InferenceSession.SessionOptions, settings: SessionSettings, dims: DecoderDims, candidates: number,
  ids: { padId: number; eosId?: number },
): Promise<Decoder> {
  let parts;
  try {
    parts = settings.splitDecoder ? splitMergedDecoder(await readFile(path)) : undefined;
  } catch {
    // Not a protobuf we can read: onnxruntime's own error below says what is wrong with the file.
  }
  if (parts) {
    let crossKv: ort.InferenceSession | undefined;
    try {
      crossKv = await ort.InferenceSession.create(parts.crossKv, options);
      const { plain, signed } = signedStepModel(parts.withPast);
      const k = settings.greedyTopK ? candidates : 0;
      const search = settings.greedyTopK || settings.beamTopK;
      const fused = settings.fuseAttention ? await openFused(plain, crossKv, options, dims, search) : undefined;
      const stepBytes = fused?.bytes ?? withSearch(plain, search);
      let withPast = fused?.session ?? await ort.InferenceSession.create(stepBytes, options);
      const searchOutputs = withPast.outputNames.includes(SEARCH.ids);
      const topCandidates = searchOutputs ? k : 0;
      const beamCandidates = searchOutputs && settings.beamTopK;
      // Greedy search's Loop (and beam search's beside it) replaces the step model (one session: it runs single steps
      // too) when it builds and runs.
      const looped = settings.greedyLoop && topCandidates > 0 && ids.eosId !== undefined
        ? await openLoops(stepBytes, withPast, ids.padId, ids.eosId, crossKv, options, dims,
          settings.beamLoop === true && beamCandidates && beamLoopFits(path))
        : undefined;
      if (looped) {
        await withPast.release();
        withPast = looped.session;
      }
      // The same stages again (all deterministic), only when asked: keeping 50+ MB of bytes for a twin that a quiet
      // machine never needs would cost more than reading the file again.
      const recipe = {
        decoderPath: path, stamp, fuseHeads: fused ? dims.heads : 0, search,
        ...(looped ? { loop: { padId: ids.padId, eosId: ids.eosId!, beam: looped.beam } } : {}),
      };
      const rebuild = () => stepModelInThread(recipe);
      const loop = looped ? { vocab: looped.vocab } : undefined;
      return {
        kind: 'split', withPast, crossKv, signedWeights: signed, fusedAttention: fused?.blocks ?? 0, topCandidates, beamCandidates, loop,
        beamLoop: !!looped?.beam, rebuild,
      };
    } catch {
      // The cut did not load: the merged file still works, only slower.
      await crossKv?.release();
    }
  }
  const session = await ort.InferenceSession.create(path, options);
  const problem = graphIoProblem(path, 'decoder', { inputs: session.inputNames, outputs: session.outputNames });
  if (problem) {
    await session.release();
    throw new Error(problem);
  }
  return { kind: 'merged', session };
}

/**
 * The with-past model with each attention block as one operator (attention-fusion.ts), if it loads and runs two
 * steps of a two-row batch (one row padded): a shape the operator rejects only shows when it runs, and then the
 * model as exported is used instead of failing translations later.
 */
export async function openFused(model: Uint8Array, crossKv: ort.InferenceSession, options: ort.InferenceSession.SessionOptions, dims: DecoderDims, search = false) {
  const fused = dims.heads > 0 ? fuseAttention(model, dims.heads) : undefined;
  if (!fused) return undefined;
  const bytes = withSearch(fused.model, search);
  const session = await ort.InferenceSession.create(bytes, options).catch(() => undefined);
  if (!session) return undefined;
  try {
    const feeds = await testFeeds(crossKv, dims);
    const input = new ort.Tensor('int64', BigInt64Array.of(0n, 0n), [2, 1]);
    for (let step = 0; step < 2; step++) {
      const out = await session.run(feedsFor(session, { ...feeds, ...NO_SEARCH, input_ids: input }));
      const logits = out.logits as ort.Tensor;
      if (logits.dims[0] !== 2 || !(logits.data as Float32Array).every(Number.isFinite)) throw new Error('fused decoder: unexpected logits');
      for (let i = 0; i < dims.layers; i++) {
        for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.decoder.${kv}`] = out[`present.${i}.decoder.${kv}`] as ort.Tensor;
      }
    }
    return { session, blocks: fused.blocks, bytes };
  } catch {
    await session.release();
    return undefined;
  }
}

/** Feeds of a test batch: two rows, one padded, three source positions (openFused, checkGreedyLoop, checkBeamLoop). */
async function testFeeds(crossKv: ort.InferenceSession, dims: DecoderDims) {
  const { layers, heads, headDim } = dims;
  const mask = new ort.Tensor('int64', BigInt64Array.of(1n, 1n, 1n, 1n, 1n, 0n), [2, 3]);
  const hidden = new ort.Tensor('float32', new Float32Array(2 * 3 * heads * headDim).fill(0.5), [2, 3, heads * headDim]);
  const cross = await crossKv.run({ encoder_hidden_states: hidden });
  const feeds: Record<string, ort.Tensor> = { encoder_attention_mask: mask };
  for (let i = 0; i < layers; i++) {
    for (const kv of ['key', 'value']) {
      feeds[`past_key_values.${i}.encoder.${kv}`] = cross[`present.${i}.encoder.${kv}`] as ort.Tensor;
      feeds[`past_key_values.${i}.decoder.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [2, heads, 0, headDim]);
    }
  }
  return feeds;
}

/**
 * The step model in greedy-loop.ts's Loop — with `beam`, beside beam search's in one model (beam-loop.ts's
 * withSearchLoops) — if it loads and passes checkGreedyLoop (and checkBeamLoop); with its logits' length and whether it
 * holds beam search's Loop. A model with both that fails is tried again with greedy search's Loop alone.
 */
async function openLoops(
  bytes: Uint8Array, step: ort.InferenceSession, padId: number, eosId: number, crossKv: ort.InferenceSession,
  options: ort.InferenceSession.SessionOptions, dims: DecoderDims, beam: boolean,
) {
  for (const withBeam of beam ? [true, false] : [false]) {
    const looped = withBeam ? withSearchLoops(bytes, padId, eosId) : withGreedyLoop(bytes, padId, eosId);
    if (!looped) continue;
    const session = await ort.InferenceSession.create(looped, options).catch(() => undefined);
    if (!session) continue;
    try {
      const vocab = await checkGreedyLoop(session, step, padId, eosId, crossKv, dims);
      if (withBeam) await checkBeamLoop(session, step, padId, crossKv, dims);
      return { session, vocab, beam: withBeam };
    } catch {
      await session.release();
    }
  }
  return undefined;
}

/**
 * Greedy search's Loop must run three steps of a two-row batch (one row padded) exactly as the step model `step` runs
 * them one by one; returns the length of the logits (the ban vector must cover every id).
 */
async function checkGreedyLoop(
  session: ort.InferenceSession, step: ort.InferenceSession, padId: number, eosId: number, crossKv: ort.InferenceSession, dims: DecoderDims,
): Promise<number> {
  // The step model one step at a time, padding fed first, each row's best candidate (nothing banned) next.
  const feeds = await testFeeds(crossKv, dims);
  // The same batch for the Loop, its cache inputs under the Loop's names (taken before the steps below fill them).
  const loopFeeds = cacheUnder(LOOP.pastPrefix, feeds);
  let ids = BigInt64Array.of(BigInt(padId), BigInt(padId));
  const expected: bigint[] = [];
  let vocab = 0;
  for (let s = 0; s < 3; s++) {
    const out = await step.run(feedsFor(step, { ...feeds, ...NO_SEARCH, input_ids: new ort.Tensor('int64', ids, [2, 1]) }));
    vocab = (out.logits as ort.Tensor).dims[2]!;
    ids = BigInt64Array.from((out[TOP_IDS] as ort.Tensor).data as BigInt64Array);
    expected.push(...ids);
    for (let i = 0; i < dims.layers; i++) {
      for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.decoder.${kv}`] = out[`present.${i}.decoder.${kv}`] as ort.Tensor;
    }
  }
  const own = {
    ...NO_SEARCH,
    ...greedyLoopInputs(3, new ort.Tensor('int64', BigInt64Array.of(BigInt(padId), BigInt(padId)), [2, 1]), new Uint8Array(2),
      new ort.Tensor('float32', new Float32Array(vocab), [vocab]), noLogits),
  };
  const out = await session.run(loopRun(session, { ...loopFeeds, ...own }, {}, LOOP.pastPrefix, dims), [LOOP.chosen]);
  const chosen = (out[LOOP.chosen] as ort.Tensor).data as BigInt64Array;
  // A row that chose EOS is fed padding afterwards: steps are compared up to the first that holds an EOS.
  for (let s = 0; s < 3; s++) {
    const want = expected.slice(2 * s, 2 * s + 2);
    if (chosen[2 * s] !== want[0] || chosen[2 * s + 1] !== want[1]) throw new Error('greedy loop: other tokens');
    if (want.includes(BigInt(eosId))) break;
  }
  return vocab;
}

/** Greedy search's Loop's own inputs (greedy-loop.ts): one row per `done` flag. */
function greedyLoopInputs(steps: number, ids: ort.Tensor, done: Uint8Array, ban: ort.Tensor, logitsLen: ort.Tensor): Record<string, ort.Tensor> {
  return {
    [LOOP.steps]: int64Of(steps, []),
    [LOOP.ids]: ids,
    [LOOP.done]: new ort.Tensor('bool', done, [done.length, 1]),
    [LOOP.ban]: ban,
    [LOOP.logitsLen]: logitsLen,
  };
}

/** Beam search's Loop's own inputs (beam-loop.ts): one row per score, each continuing its own cache row, no logits kept. */
function beamLoopInputs(steps: number, beams: number, ids: ort.Tensor, scores: Float32Array, done: Uint8Array, ban: ort.Tensor): Record<string, ort.Tensor> {
  const rows = scores.length;
  return {
    [BEAM_LOOP.steps]: int64Of(steps, []),
    [BEAM_LOOP.beams]: int64Of(beams, [1]),
    [BEAM_LOOP.ids]: ids,
    [BEAM_LOOP.scores]: new ort.Tensor('float32', scores, [rows]),
    [BEAM_LOOP.done]: new ort.Tensor('bool', done, [rows, 1]),
    [BEAM_LOOP.from]: new ort.Tensor('int64', BigInt64Array.from({ length: rows }, (_, r) => BigInt(r)), [rows]),
    [BEAM_LOOP.ban]: ban,
    [BEAM_LOOP.lastLogits]: emptyOf('float32', [rows, 1, 0]),
  };
}

/** Beam search's Loop's own inputs for one sentence of two beams (rows 0 and 1), only the first live yet, nothing banned. */
export function twoBeams(steps: number, ids: ort.Tensor, vocab: number): Record<string, ort.Tensor> {
  return beamLoopInputs(steps, 2, ids, Float32Array.of(0, -1e9), new Uint8Array(2), new ort.Tensor('float32', new Float32Array(vocab), [vocab]));
}

/**
 * Beam search's Loop must read, on its first step of a two-row batch (one sentence, two beams, one row padded), the
 * candidates the step model gives, and run a second step on the reordered cache.
 */
async function checkBeamLoop(
  session: ort.InferenceSession, step: ort.InferenceSession, padId: number, crossKv: ort.InferenceSession, dims: DecoderDims,
): Promise<void> {
  const feeds = await testFeeds(crossKv, dims);
  // 2 × beams candidates and beam.ts's margin of 8: the boundary check holds, so the run goes on to its second step.
  const search = searchFeeds(12, WHOLE_ROW);
  const ids = new ort.Tensor('int64', BigInt64Array.of(BigInt(padId), BigInt(padId)), [2, 1]);
  const first = await step.run(feedsFor(step, { ...feeds, ...search, input_ids: ids }));
  const vocab = (first.logits as ort.Tensor).dims[2]!;
  const run = { ...cacheUnder(BEAM_LOOP.prefix, feeds), ...search, ...twoBeams(2, ids, vocab) };
  const out = await session.run(loopRun(session, run, {}, BEAM_LOOP.prefix, dims), [BEAM_LOOP.topIds, BEAM_LOOP.chosenFrom]);
  const top = (out[BEAM_LOOP.topIds] as ort.Tensor).data as BigInt64Array;
  const want = (first[TOP_IDS] as ort.Tensor).data as BigInt64Array;
  if (want.some((id, i) => top[i] !== id)) throw new Error('beam loop: other candidates');
  const from = out[BEAM_LOOP.chosenFrom] as ort.Tensor;
  if (from.dims[0] !== 2 || (from.data as BigInt64Array).some((r) => r !== 0n && r !== 1n)) throw new Error('beam loop: not two steps on rows 0 and 1');
}

type Result = 'logits' | typeof TOP_IDS | 'beam';

/** What stepBeam returns: per row (of the state) its statistics and m best logits with their token ids. */
export interface BeamStep {
  m: number;
  /** [rows] max of the row's logits and log Σ exp(x − max): log_softmax(x) = (x − max) − logSum (float32). */
  max: Float32Array;
  logSum: Float32Array;
  /** [rows x m] the row's m largest logits, best first (ties to the lower id), and their token ids. */
  values: Float32Array;
  ids: BigInt64Array;
  /** All logits of the same step ([rows x vocab]), computed again on demand. */
  logits: () => Promise<Float32Array>;
}

export class Seq2SeqModel {
  private readonly selfNames: string[] = [];
  private readonly crossNames: string[] = [];
  /** Feed and output names of the cache, made once. */
  private readonly selfPast: string[];
  private readonly selfPresent: string[];
  private readonly crossPast: string[];
  /** What a split step fetches: one result and the self-attention cache (a copy of anything more costs time). */
  private readonly fetches: Record<Result, string[]>;

  private constructor(
    private readonly encoder: ort.InferenceSession,
    private readonly decoder: Decoder,
    private readonly dims: DecoderDims,
    private readonly padId: number,
    /** onnxruntime threads these sessions use. */
    private readonly threads: number,
    /** DRAGOMAN_SPINNING=auto with the split decoder: the step model's spinning and non-spinning sessions. */
    private readonly steps?: StepSessions,
  ) {
    for (let i = 0; i < dims.layers; i++) {
      for (const kv of ['key', 'value']) {
        this.selfNames.push(`${i}.decoder.${kv}`);
        this.crossNames.push(`${i}.encoder.${kv}`);
      }
    }
    this.selfPast = this.selfNames.map((n) => `past_key_values.${n}`);
    this.selfPresent = this.selfNames.map((n) => `present.${n}`);
    this.crossPast = this.crossNames.map((n) => `past_key_values.${n}`);
    this.fetches = {
      logits: ['logits', ...this.selfPresent],
      [TOP_IDS]: [TOP_IDS, ...this.selfPresent],
      beam: [SEARCH.max, SEARCH.logSum, SEARCH.values, SEARCH.ids, ...this.selfPresent],
    };
    const loopPresent = this.selfPresent.map((n) => LOOP.presentPrefix + n);
    this.loopFetches = {
      logits: [LOOP.logits, ...loopPresent],
      [TOP_IDS]: [LOOP.topIds, ...loopPresent],
      beam: [LOOP.max, LOOP.logSum, LOOP.values, LOOP.topIds, ...loopPresent],
    };
  }

  /** The same fetches from greedy-loop.ts's Loop, and the step model's name of each of its outputs. */
  private readonly loopFetches: Record<Result, string[]>;
  private static readonly FROM_LOOP: Record<string, string> = {
    [LOOP.logits]: 'logits', [LOOP.topIds]: TOP_IDS, [LOOP.values]: SEARCH.values, [LOOP.max]: SEARCH.max, [LOOP.logSum]: SEARCH.logSum,
  };
  private beamLoopStopped = false;
  /** Greedy search's ban vectors by banned ids (pad; pad and EOS), made once. */
  private readonly bans = new Map<string, ort.Tensor>();

  /** Threads, decoder kind, int8 output projection (signed-weights.ts), fused attention blocks (attention-fusion.ts). */
  get runtime(): LoadedRuntime {
    const split = this.decoder.kind === 'split' ? this.decoder : undefined;
    return {
      threads: this.threads, decoder: this.decoder.kind, signedWeights: !!split?.signedWeights, fusedAttention: split?.fusedAttention ?? 0,
      topCandidates: this.topCandidates, greedyLoop: this.greedyLoop, beamLoop: this.beamLoop,
    };
  }

  /** k of stepCandidates (0: this model only has step's logits). */
  get topCandidates(): number {
    return this.decoder.kind === 'split' ? this.decoder.topCandidates : 0;
  }

  /**
   * `candidates`: greedy search's top-k from the decoder (candidatesNeeded of the model's rules), 0 for none.
   * `contention`: the worker's one reading of the machine for DRAGOMAN_SPINNING=auto (else one of the model's own).
   * `eosId`: the model's EOS, for greedy search's Loop (settings.greedyLoop; without it, no loop).
   */
  static async load(
    encoderPath: string, decoderPath: string, dims: DecoderDims, padId: number, settings: SessionSettings, candidates = 0,
    contention?: CpuContention, eosId?: number,
  ) {
    const decoderBytes = statSync(decoderPath).size;
    const stamp = fileStamp(decoderPath);
    const threads = threadsFor(settings, decoderBytes);
    const options = sessionOptions(settings, threads);
    // Each file's problem is reported with that file's path (a folder report must say which one to replace).
    const encoder = await ort.InferenceSession.create(encoderPath, options).catch((err: Error) => {
      throw new Error(`${encoderPath}: onnxruntime cannot load it: ${err.message}`);
    });
    // A valid graph of the wrong kind (the decoder copied over the encoder) would load and fail on every request.
    const problem = graphIoProblem(encoderPath, 'encoder', { inputs: encoder.inputNames, outputs: encoder.outputNames });
    if (problem) {
      await encoder.release();
      throw new Error(problem);
    }
    const decoder = await openDecoder(decoderPath, stamp, options, settings, dims, candidates, { padId, eosId }).catch(async (err: Error) => {
      await encoder.release();
      throw err.message.startsWith(decoderPath) ? err : new Error(`${decoderPath}: onnxruntime cannot load it: ${err.message}`);
    });
    // auto: a non-spinning twin of the step model for when the cores are shared. Not for one thread (nothing spins),
    // nor a decoder past MAX_TWIN_DECODER_BYTES (NLLB-200: a second session would be gigabytes): those spin within runs.
    if (settings.spinning !== 'auto' || threads < 2 || decoderBytes > MAX_TWIN_DECODER_BYTES) {
      return new Seq2SeqModel(encoder, decoder, dims, padId, threads);
    }
    const step = decoder.kind === 'split' ? decoder.withPast : decoder.session;
    const rebuild = decoder.kind === 'split' ? decoder.rebuild : async () => {
      assertUnchanged(decoderPath, stamp);
      return new Uint8Array(await readFile(decoderPath));
    };
    const steps = new StepSessions(step, contention ?? new CpuContention(settings.poolThreads || threads), rebuild, {
      spin: options,
      calm: sessionOptions({ ...settings, spinning: 'off' }, threads),
    });
    return new Seq2SeqModel(encoder, decoder, dims, padId, threads, steps);
  }

  /** DRAGOMAN_SPINNING=auto: the step model's sessions (undefined otherwise). */
  get stepSessions(): StepSessions | undefined {
    return this.steps;
  }

  /** Runs the encoder on right-padded rows. */
  async encode(batch: number[][]): Promise<Encoded> {
    const rows = batch.length;
    const width = Math.max(...batch.map((r) => r.length));
    const ids = new BigInt64Array(rows * width).fill(BigInt(this.padId));
    const mask = new BigInt64Array(rows * width);
    batch.forEach((row, r) => row.forEach((id, j) => {
      ids[r * width + j] = BigInt(id);
      mask[r * width + j] = 1n;
    }));
    const maskTensor = new ort.Tensor('int64', mask, [rows, width]);
    const out = await this.encoder.run({ input_ids: new ort.Tensor('int64', ids, [rows, width]), attention_mask: maskTensor });
    return { hidden: out.last_hidden_state as ort.Tensor, mask: maskTensor, rows };
  }

  /** Repeats every encoded row `times` times (beam search: one copy per beam, rows stay grouped). */
  expand(encoded: Encoded, times: number): Encoded {
    if (times === 1) return encoded;
    return { hidden: repeatRows(encoded.hidden, times), mask: repeatRows(encoded.mask, times), rows: encoded.rows * times };
  }

  start(encoded: Encoded): DecoderState {
    const { heads, headDim } = this.dims;
    const past: Record<string, ort.Tensor> = {};
    for (const n of [...this.selfNames, ...this.crossNames]) {
      past[`past_key_values.${n}`] = new ort.Tensor('float32', new Float32Array(0), [encoded.rows, heads, 0, headDim]);
    }
    return { rows: encoded.rows, encoded, past, step: 0 };
  }

  /** Feeds one token per row; returns logits [rows x vocab] and advances the cache. */
  async step(state: DecoderState, tokens: number[]): Promise<Float32Array> {
    const out = await this.advance(state, tokens, 'logits');
    return (out.logits as ort.Tensor).data as Float32Array;
  }

  /**
   * Feeds one token per row; returns each row's topCandidates best token ids ([rows x k], best first, ties to the
   * lower id) instead of the logits, and advances the cache. Only when topCandidates > 0.
   */
  async stepCandidates(state: DecoderState, tokens: number[]): Promise<BigInt64Array> {
    if (this.topCandidates === 0) throw new Error('this decoder has no top-k output');
    const { out } = await this.advanceWith(state, tokens, TOP_IDS, searchFeeds(this.topCandidates, 1));
    return (out[TOP_IDS] as ort.Tensor).data as BigInt64Array;
  }

  /** Whether stepBeam is available (the split decoder with beam search's outputs, DRAGOMAN_BEAM_TOPK). */
  get beamCandidates(): boolean {
    return this.decoder.kind === 'split' && this.decoder.beamCandidates;
  }

  /**
   * Feeds one token per row; returns beam search's per-row log-softmax statistics and `m` best logits (best first,
   * ties to the lower id) instead of all logits, and advances the cache. `logits()` runs the same step again on the
   * same inputs for all logits, without touching the cache: beam.ts's way out when a tie reaches the m-th candidate.
   */
  async stepBeam(state: DecoderState, tokens: number[], m: number): Promise<BeamStep> {
    if (!this.beamCandidates || this.decoder.kind !== 'split') throw new Error('this decoder has no beam search outputs');
    const { out, feeds, session } = await this.advanceWith(state, tokens, 'beam', searchFeeds(m, WHOLE_ROW));
    const data = (name: string) => (out[name] as ort.Tensor).data;
    return {
      m,
      max: data(SEARCH.max) as Float32Array,
      logSum: data(SEARCH.logSum) as Float32Array,
      values: data(SEARCH.values) as Float32Array,
      ids: data(SEARCH.ids) as BigInt64Array,
      logits: async () => this.decoder.kind === 'split' && this.decoder.loop
        ? (await session!.run({ ...feeds!, [LOOP.logitsLen]: wholeRowLength }, [LOOP.logits]))[LOOP.logits]!.data as Float32Array
        : (await session!.run(feeds!, ['logits'])).logits!.data as Float32Array,
    };
  }

  /** One decoder run fetching `result` and the self-attention cache (only what is fetched is copied out). */
  private async advance(state: DecoderState, tokens: number[], result: 'logits'): Promise<ort.InferenceSession.ReturnType> {
    return (await this.advanceWith(state, tokens, result, NO_SEARCH)).out;
  }

  /** advance, with the search inputs' feeds (split decoder), returning also the feeds it ran (split decoder only). */
  private async advanceWith(state: DecoderState, tokens: number[], result: Result, search: Record<string, ort.Tensor>) {
    let used: Record<string, ort.Tensor> | undefined;
    let usedSession: ort.InferenceSession | undefined;
    const feeds: Record<string, ort.Tensor> = {
      encoder_attention_mask: state.encoded.mask,
      input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, (t) => BigInt(t)), [state.rows, 1]),
      encoder_hidden_states: state.encoded.hidden,
    };
    let out: ort.InferenceSession.ReturnType;
    // The cache lives in state.past, updated in place; each run's feeds are one object filled in the session's input
    // order (spreading ~27 tensors into fresh objects twice a step cost ~40 µs of a ~2.5 ms step).
    if (this.decoder.kind === 'split') {
      await this.splitCross(state);
      const session = this.steps?.pick() ?? this.decoder.withPast;
      if (this.decoder.loop) {
        // The Loop run for one step: its outputs under the step model's names ([1, rows, ...] is [rows, ...]'s data).
        const run = this.loopFeeds(session, state, feeds.input_ids!, 1, [], undefined, search, result === 'logits');
        const raw = await session.run(run, this.loopFetches[result]);
        out = Object.fromEntries(Object.entries(raw).map(([name, tensor]) => [Seq2SeqModel.FROM_LOOP[name] ?? name.slice(LOOP.presentPrefix.length), tensor]));
        used = run;
      } else {
        const run: Record<string, ort.Tensor> = {};
        for (const name of session.inputNames) run[name] = feeds[name] ?? state.past[name] ?? search[name]!;
        out = await session.run(run, this.fetches[result]);
        used = run;
      }
      usedSession = session;
    } else {
      out = await (this.steps?.pick() ?? this.decoder.session).run({
        ...feeds,
        use_cache_branch: new ort.Tensor('bool', Uint8Array.from([state.step > 0 ? 1 : 0]), [1]),
        ...state.past,
      });
      if (state.step === 0) this.keepCross(state, out);
    }
    this.selfPast.forEach((key, i) => (state.past[key] = out[this.selfPresent[i]!] as ort.Tensor));
    state.step++;
    return { out, feeds: used, session: usedSession };
  }

  /** Whether beamSteps is available: the step model holds beam search's Loop (beam-loop.ts's withSearchLoops), not stopped. */
  get beamLoop(): boolean {
    return this.decoder.kind === 'split' && this.decoder.beamLoop && !this.beamLoopStopped;
  }

  /** Beam search takes one step a run from now on (beam.ts's beamSearchSafe, after a mismatch). */
  stopBeamLoop(): void {
    this.beamLoopStopped = true;
  }

  /**
   * Beam search for up to `steps` steps in one onnxruntime run (beam-loop.ts): rows are sentences × `beams`, `scores`
   * each row's beam score, `done` each row's sentence finished; every step reads m candidates a row. Returns each step
   * run as stepBeam returns it, and the graph's choice after each (cache row followed, token); the cache is advanced
   * by that many steps, reordered by every choice but the last one's (beam search makes and applies that one).
   */
  async beamSteps(
    state: DecoderState, tokens: number[], scores: number[], steps: number, banned: readonly number[], done: readonly boolean[], m: number, beams: number,
  ): Promise<{ stepped: BeamStep[]; chosenFrom: number[][]; chosenIds: number[][] }> {
    const decoder = this.decoder;
    if (decoder.kind !== 'split' || !decoder.beamLoop || !decoder.loop) throw new Error('this decoder has no beam loop');
    const loop = decoder.loop;
    await this.splitCross(state);
    const rows = state.rows;
    const own: Record<string, ort.Tensor> = {
      ...searchFeeds(m, WHOLE_ROW),
      ...beamLoopInputs(steps, beams, new ort.Tensor('int64', BigInt64Array.from(tokens, (t) => BigInt(t)), [rows, 1]),
        Float32Array.from(scores), Uint8Array.from(done, Number), this.banVector(banned, loop.vocab)),
      encoder_attention_mask: state.encoded.mask,
    };
    const session = this.steps?.pick() ?? decoder.withPast;
    const run = loopRun(session, own, state.past, BEAM_LOOP.prefix, this.dims);
    const fetches = [BEAM_LOOP.values, BEAM_LOOP.topIds, BEAM_LOOP.max, BEAM_LOOP.logSum, BEAM_LOOP.chosenFrom, BEAM_LOOP.chosenIds, BEAM_LOOP.lastLogitsOut];
    const out = await session.run(run, [...fetches, ...this.selfPresent.map((n) => BEAM_LOOP.prefix + n)]);
    this.selfPast.forEach((key, i) => (state.past[key] = out[BEAM_LOOP.prefix + this.selfPresent[i]!] as ort.Tensor));
    const from = out[BEAM_LOOP.chosenFrom] as ort.Tensor;
    const ran = from.dims[0]!;
    state.step += ran;
    const data = <T extends Float32Array | BigInt64Array>(name: string) => (out[name] as ort.Tensor).data as T;
    const perStep = <T extends Float32Array | BigInt64Array>(all: T, s: number) => all.subarray((s * all.length) / ran, ((s + 1) * all.length) / ran) as T;
    const last = data<Float32Array>(BEAM_LOOP.lastLogitsOut);
    const stepped = Array.from({ length: ran }, (_, s): BeamStep => ({
      m,
      max: perStep(data<Float32Array>(BEAM_LOOP.max), s),
      logSum: perStep(data<Float32Array>(BEAM_LOOP.logSum), s),
      values: perStep(data<Float32Array>(BEAM_LOOP.values), s),
      ids: perStep(data<BigInt64Array>(BEAM_LOOP.topIds), s),
      // The graph keeps the logits of its last step only, and only when that step's boundary check failed.
      logits: async () => {
        if (s !== ran - 1 || last.length !== rows * loop.vocab) throw new Error('beam loop: no logits kept for this step');
        return last;
      },
    }));
    const rowsOf = (all: BigInt64Array) => Array.from({ length: ran }, (_, s) => Array.from(perStep(all, s), Number));
    return { stepped, chosenFrom: rowsOf(from.data as BigInt64Array), chosenIds: rowsOf(data<BigInt64Array>(BEAM_LOOP.chosenIds)) };
  }

  /** Whether greedySteps is available: the step model is greedy-loop.ts's Loop. */
  get greedyLoop(): boolean {
    return this.decoder.kind === 'split' && !!this.decoder.loop;
  }

  /**
   * Greedy search for up to `steps` steps in one onnxruntime run (greedy-loop.ts): each row not `done` takes its best
   * candidate that is not `banned` (the same ids for every row and step), a row that chooses EOS is done and fed
   * padding from then on; the run ends early when every row is done. Returns the tokens chosen, one array per step
   * run ([rows] each, padding for done rows), and advances the cache by that many steps.
   */
  async greedySteps(state: DecoderState, tokens: number[], steps: number, banned: readonly number[], done: readonly boolean[]): Promise<number[][]> {
    if (this.decoder.kind !== 'split' || !this.decoder.loop) throw new Error('this decoder has no greedy loop');
    await this.splitCross(state);
    const ids = new ort.Tensor('int64', BigInt64Array.from(tokens, (t) => BigInt(t)), [state.rows, 1]);
    const session = this.steps?.pick() ?? this.decoder.withPast;
    const run = this.loopFeeds(session, state, ids, steps, banned, done, searchFeeds(this.topCandidates, 1), false);
    const out = await session.run(run, [LOOP.chosen, ...this.loopFetches[TOP_IDS].slice(1)]);
    this.selfPast.forEach((key, i) => (state.past[key] = out[LOOP.presentPrefix + this.selfPresent[i]!] as ort.Tensor));
    const chosen = out[LOOP.chosen] as ort.Tensor;
    const ran = chosen.dims[0]!;
    state.step += ran;
    const data = chosen.data as BigInt64Array;
    return Array.from({ length: ran }, (_, s) => Array.from(data.subarray(s * state.rows, (s + 1) * state.rows), Number));
  }

  /**
   * Split decoder, first step: the cross-attention K/V from the encoder output, then every step (the first with an
   * empty self-attention cache) on the with-past model.
   */
  private async splitCross(state: DecoderState): Promise<void> {
    if (state.step > 0 || this.decoder.kind !== 'split') return;
    this.keepCross(state, await this.decoder.crossKv.run({ encoder_hidden_states: state.encoded.hidden }));
  }

  /** The cross-attention K/V of a first step's outputs, kept for every later step. */
  private keepCross(state: DecoderState, from: ort.InferenceSession.ReturnType): void {
    this.crossNames.forEach((n, i) => (state.past[this.crossPast[i]!] = from[`present.${n}`] as ort.Tensor));
  }

  /** A Loop run's feeds, in the session's input order (greedy-loop.ts). */
  private loopFeeds(
    session: ort.InferenceSession, state: DecoderState, ids: ort.Tensor, steps: number, banned: readonly number[],
    done: readonly boolean[] | undefined, search: Record<string, ort.Tensor>, wholeLogits: boolean,
  ): Record<string, ort.Tensor> {
    const own: Record<string, ort.Tensor> = {
      ...search,
      ...greedyLoopInputs(steps, ids, done ? Uint8Array.from(done, Number) : new Uint8Array(state.rows),
        this.banVector(banned, this.decoder.kind === 'split' ? this.decoder.loop?.vocab ?? 0 : 0), wholeLogits ? wholeRowLength : noLogits),
      encoder_attention_mask: state.encoded.mask,
    };
    return loopRun(session, own, state.past, LOOP.pastPrefix, this.dims);
  }

  private banVector(banned: readonly number[], vocab: number): ort.Tensor {
    const key = `${vocab}:${banned.join(',')}`;
    let tensor = this.bans.get(key);
    if (!tensor) {
      const data = new Float32Array(vocab);
      for (const id of banned) if (id >= 0 && id < vocab) data[id] = -Infinity;
      tensor = new ort.Tensor('float32', data, [vocab]);
      this.bans.set(key, tensor);
    }
    return tensor;
  }

  /** Beam search: row i of the self-attention cache becomes old row `from[i]`. Cross K/V rows of one source are equal. */
  reorder(state: DecoderState, from: number[]): void {
    for (const n of this.selfNames) permuteRows(state.past[`past_key_values.${n}`]!, from);
  }

  /** Keeps only the given rows of a batch (finished rows stop costing compute); every cached tensor follows. */
  select(state: DecoderState, rows: number[]): void {
    for (const key of Object.keys(state.past)) state.past[key] = gatherRows(state.past[key]!, rows);
    state.encoded = { hidden: gatherRows(state.encoded.hidden, rows), mask: gatherRows(state.encoded.mask, rows), rows: rows.length };
    state.rows = rows.length;
  }

  async release(): Promise<void> {
    await this.encoder.release();
    // With auto spinning, the step sessions own the step model's session (it may already be released as the idle one).
    if (this.steps) await this.steps.release();
    else await (this.decoder.kind === 'split' ? this.decoder.withPast : this.decoder.session).release();
    if (this.decoder.kind === 'split') {
      await this.decoder.crossKv.release();
    }
  }
}

function repeatRows(t: ort.Tensor, times: number): ort.Tensor {
  const rows = t.dims[0]!;
  const from: number[] = [];
  for (let r = 0; r < rows; r++) for (let k = 0; k < times; k++) from.push(r);
  return gatherRows(t, from);
}

/**
 * Row i becomes old row `from[i]`, in the tensor's own buffer (the cache tensors are ours: onnxruntime-node copies
 * each output into a new ArrayBuffer). Only rows that move are copied: most beams stay where they are from one step
 * to the next, and a fresh copy of the whole cache per step (up to hundreds of MB for a large beam batch late in a
 * long output) cost time and left that much garbage behind each step.
 */
function permuteRows(t: ort.Tensor, from: number[]): void {
  const data = t.data as Float32Array;
  const rows = t.dims[0]!;
  if (from.length !== rows) throw new Error(`reorder: ${from.length} rows for a cache of ${rows}`);
  const per = data.length / rows;
  const moved = new Map<number, Float32Array>();
  from.forEach((r, i) => {
    if (r !== i && !moved.has(r)) moved.set(r, data.slice(r * per, (r + 1) * per));
  });
  from.forEach((r, i) => {
    if (r !== i) data.set(moved.get(r)!, i * per);
  });
}

function gatherRows(t: ort.Tensor, from: number[]): ort.Tensor {
  const data = t.data as Float32Array | BigInt64Array;
  const per = data.length / t.dims[0]!;
  const out = new (data.constructor as Float32ArrayConstructor | BigInt64ArrayConstructor)(per * from.length);
  from.forEach((r, i) => (out as Float32Array).set((data as Float32Array).subarray(r * per, (r + 1) * per), i * per));
  return new ort.Tensor(t.type as 'float32', out as Float32Array, [from.length, ...t.dims.slice(1)]);
}
