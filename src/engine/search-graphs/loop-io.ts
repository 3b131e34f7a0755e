// The Loops' inputs and outputs and the tensors a run of the step model or of its Loops is fed, shared by the Loops'
// checks and the runtime (runtime/seq2seq.ts): search inputs (top-candidates.ts), each Loop's names and own inputs
// (greedy-loop.ts, beam-loop.ts build them), and what the Loop a run does not use is fed.
import ort from 'onnxruntime-node';
import type { DecoderDims } from '../model/family.ts';
import { SEARCH } from './top-candidates.ts';

/**
 * Search drops finished rows from the state once this share of it (1 / n) is done; a greedy run ends there too
 * (greedy-loop.ts bakes it into its Loop; search reads it through runtime/search-decoder.ts), so that the rows left run on without the finished ones.
 */
export const DROP_FINISHED_SHARE = 4;

/** The loop model's own inputs and outputs (its other inputs are the step model's, by the same names). */
export const LOOP = {
  /** int64 scalar: steps to run at most (the loop ends earlier when every row is done). */
  steps: 'loop/steps',
  /** The first step's tokens [rows, 1] and the rows already done [rows, 1] (bool: fed padding, never chosen for). */
  ids: 'loop/ids',
  done: 'loop/done',
  /** float [vocab]: 0, or -Infinity for a banned token (the same for every row and step of the run). */
  ban: 'loop/ban',
  /** int64 [1]: how much of each row's logits the `logits` scan output carries (0, or the whole row for a step's logits). */
  logitsLen: 'loop/logits_len',
  /** Scan outputs, one row per step run: chosen tokens [steps, rows, 1], and the step model's logits and top ids. */
  chosen: 'loop/chosen',
  logits: 'loop/logits',
  topIds: 'loop/top_ids',
  /** The self-attention cache after the last step, under the step model's `present.*` name with this prefix. */
  presentPrefix: 'loop/',
  /** The carried cache inputs: the step model's `past_key_values.*.decoder.*` names with this prefix. */
  pastPrefix: 'loop/',
} as const;

/** The beam loop model's own inputs and outputs (its other inputs are the step model's, by the same names). */
export const BEAM_LOOP = {
  /** int64 scalar: steps to run at most. */
  steps: 'beam/steps',
  /** int64 [1]: beams per sentence (rows = sentences × beams, grouped). */
  beams: 'beam/beams',
  /** The first step's tokens [rows, 1], each row's beam score [rows] (float32) and the rows of finished sentences [rows, 1]. */
  ids: 'beam/ids',
  scores: 'beam/scores',
  done: 'beam/done',
  /** int64 [rows]: the row of the cache each row continues at the first step (the choice made before the run). */
  from: 'beam/from',
  /** The rules of every step of the run, as beam-rank.ts reads them: mask [1 or rows, 1, vocab], forced [1 or rows, 1, 1]. */
  mask: 'beam/mask',
  forced: 'beam/forced',
  /** Scan outputs, one per step run: beam-rank.ts's ranking [steps, sentences, 2 × beams] (scores, row continued, token). */
  values: 'beam/values',
  rankedFrom: 'beam/ranked_from',
  rankedIds: 'beam/ranked_ids',
  /** Cache in (`past_key_values.N.decoder.*`) and out (`present.N.decoder.*`) under the step model's names with this prefix. */
  prefix: 'beam/',
} as const;

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
