// The tensors a run of the step model or of its Loops is fed, shared by the graph checks (passes.ts) and the runtime
// (runtime/decoder.ts): search inputs (top-candidates.ts), each Loop's own inputs (greedy-loop.ts, beam-loop.ts), what
// the Loop a run does not use is fed, and a small test batch.
import ort from 'onnxruntime-node';
import type { DecoderDims } from '../model/family.ts';
import { BEAM_LOOP } from './beam-loop.ts';
import { LOOP } from './greedy-loop.ts';
import { SEARCH } from './top-candidates.ts';

/** Feeds of the search inputs (top-candidates.ts): k best logits per row, statistics over statsLen of each row. */
export function searchFeeds(k: number, statsLen: number): Record<string, ort.Tensor> {
  return {
    [SEARCH.k]: new ort.Tensor('int64', BigInt64Array.of(BigInt(k)), [1]),
    [SEARCH.statsLen]: new ort.Tensor('int64', BigInt64Array.of(BigInt(statsLen)), [1]),
  };
}

/** What a run that reads neither (logits only) feeds them: one candidate, statistics of one element. */
export const NO_SEARCH = searchFeeds(1, 1);

/** Beyond any vocabulary: Slice clamps it to the row. */
export const WHOLE_ROW = 2 ** 40;
/** greedy-loop.ts's `logits` scan output: whole rows (a step asked for its logits), or none. */
export const wholeRowLength = new ort.Tensor('int64', BigInt64Array.of(BigInt(WHOLE_ROW)), [1]);
export const noLogits = new ort.Tensor('int64', BigInt64Array.of(0n), [1]);

/** The feeds a session declares (the split models take fewer inputs than the merged one). */
export function feedsFor(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Record<string, ort.Tensor> {
  return Object.fromEntries(session.inputNames.map((n) => [n, feeds[n]!]));
}

/** Test feeds with the self-attention cache under a Loop model's `prefix` (checkGreedyLoop, checkBeamLoop). */
export function cacheUnder(prefix: string, feeds: Record<string, ort.Tensor>): Record<string, ort.Tensor> {
  return Object.fromEntries(Object.entries(feeds).map(([name, t]) => [/\.decoder\./.test(name) ? prefix + name : name, t]));
}

/**
 * A Loop model's run in its session's input order: its own inputs from `own`, the self-attention cache (named under
 * `prefix`) and the cross-attention K/V from `past` (greedy-loop.ts and beam-loop.ts name the rest as the step model does),
 * and the other Loop's inputs, if the model has two, as idleLoopInput gives them.
 */
export function loopRun(session: ort.InferenceSession, own: Record<string, ort.Tensor>, past: Record<string, ort.Tensor>, prefix: string, dims: DecoderDims) {
  const run: Record<string, ort.Tensor> = {};
  for (const name of session.inputNames) {
    run[name] = own[name] ?? (name.startsWith(prefix) ? past[name.slice(prefix.length)] : past[name] ?? idleLoopInput(name, dims))!;
  }
  return run;
}

export const emptyOf = (type: 'int64' | 'float32' | 'bool', dims: number[]) =>
  new ort.Tensor(type, type === 'int64' ? new BigInt64Array(0) : type === 'bool' ? new Uint8Array(0) : new Float32Array(0), dims);
/** beam-rank.ts's `forced` for every row: none. */
const noneForced = new ort.Tensor('int64', BigInt64Array.of(-1n), [1, 1, 1]);
export const int64Of = (value: number, dims: number[]) => new ort.Tensor('int64', BigInt64Array.of(BigInt(value)), dims);

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
    case LOOP.ban: case BEAM_LOOP.scores: return emptyOf('float32', [0]);
    case BEAM_LOOP.mask: return emptyOf('float32', [1, 1, 0]);
    case BEAM_LOOP.forced: return noneForced;
    case LOOP.logitsLen: return int64Of(0, [1]);
    case BEAM_LOOP.beams: return int64Of(1, [1]);
    case BEAM_LOOP.from: return emptyOf('int64', [0]);
    default: return undefined;
  }
}

/** Feeds of a test batch: two rows, one padded, three source positions (openFused, checkGreedyLoop, checkBeamLoop). */
export async function testFeeds(crossKv: ort.InferenceSession, dims: DecoderDims) {
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

/** Greedy search's Loop's own inputs (greedy-loop.ts): one row per `done` flag. */
export function greedyLoopInputs(steps: number, ids: ort.Tensor, done: Uint8Array, ban: ort.Tensor, logitsLen: ort.Tensor): Record<string, ort.Tensor> {
  return {
    [LOOP.steps]: int64Of(steps, []),
    [LOOP.ids]: ids,
    [LOOP.done]: new ort.Tensor('bool', done, [done.length, 1]),
    [LOOP.ban]: ban,
    [LOOP.logitsLen]: logitsLen,
  };
}

/** beam-rank.ts's rules as tensors: the mask (0, −∞ for a banned token) and the token forced (−1: none), per row or for all. */
export interface RuleTensors {
  mask: ort.Tensor;
  forced: ort.Tensor;
}

/** What the rules leave of a row's next token at one step, as beam-rank.ts's tensors encode it. */
export interface RankRules {
  forced: number | undefined;
  banned: Iterable<number>;
}

/**
 * beam-rank.ts's rule tensors, a row each (undefined: no rules, a finished sentence's row): the mask is applyRules
 * on zeros (a forced row −∞ but its token, then the bans), and `forced` the token each row is forced to (−1: none).
 */
export function ruleTensors(rules: readonly (RankRules | undefined)[], vocab: number): RuleTensors {
  const mask = new Float32Array(rules.length * vocab);
  const forced = new BigInt64Array(rules.length).fill(-1n);
  rules.forEach((rule, r) => {
    if (!rule) return;
    const row = mask.subarray(r * vocab, (r + 1) * vocab);
    if (rule.forced !== undefined) {
      row.fill(-Infinity);
      row[rule.forced] = 0;
      forced[r] = BigInt(rule.forced);
    }
    for (const id of rule.banned) if (id >= 0 && id < vocab) row[id] = -Infinity;
  });
  return { mask: new ort.Tensor('float32', mask, [rules.length, 1, vocab]), forced: new ort.Tensor('int64', forced, [rules.length, 1, 1]) };
}

/** Beam search's Loop's own inputs (beam-loop.ts): one row per score, each continuing cache row `from`. */
export function beamLoopInputs(
  steps: number, beams: number, ids: ort.Tensor, from: BigInt64Array, scores: Float32Array, done: Uint8Array, rules: RuleTensors,
): Record<string, ort.Tensor> {
  const rows = scores.length;
  return {
    [BEAM_LOOP.steps]: int64Of(steps, []),
    [BEAM_LOOP.beams]: int64Of(beams, [1]),
    [BEAM_LOOP.ids]: ids,
    [BEAM_LOOP.scores]: new ort.Tensor('float32', scores, [rows]),
    [BEAM_LOOP.done]: new ort.Tensor('bool', done, [rows, 1]),
    [BEAM_LOOP.from]: new ort.Tensor('int64', from, [rows]),
    [BEAM_LOOP.mask]: rules.mask,
    [BEAM_LOOP.forced]: rules.forced,
  };
}

/** Beam search's Loop's own inputs for one sentence of two beams (rows 0 and 1), only the first live yet, `banned` banned. */
export function twoBeams(steps: number, ids: ort.Tensor, vocab: number, ...banned: number[]): Record<string, ort.Tensor> {
  const rules = ruleTensors([{ forced: undefined, banned }], vocab);
  return beamLoopInputs(steps, 2, ids, BigInt64Array.of(0n, 1n), Float32Array.of(0, -1e9), new Uint8Array(2), rules);
}
