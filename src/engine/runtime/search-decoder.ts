// The one interface search sees of a model, as CTranslate2's decoding.h sees its decoder: begin a batch, ask for a
// step or a run of steps, read each row's candidates; reorder and drop rows. Which graph variant answers (optimum's
// merged file, the split step model, its search outputs, its Loops) is the runtime's business: a step answers with
// candidates when the graph has them and with logits otherwise, and a run the graph cannot take answers `undefined`,
// after which the search takes single steps.
import type { DecoderState } from './kv-cache.ts';

export type { DecoderState } from './kv-cache.ts';

/**
 * Search drops finished rows from the state once this share of it (1 / n) is done; a greedy run ends there too
 * (greedy-loop.ts), so that the rows left run on without the finished ones.
 */
export const DROP_FINISHED_SHARE = 4;

/** What a step is asked for. */
export interface CandidateRequest {
  /** Best tokens per row, best first, ties to the lower id (0: the logits only). */
  k: number;
  /** Also the candidates' logits and each row's log-softmax statistics (beam search scores them). */
  scores: boolean;
}

/** The logits only: what constrained search, and a decoder without search outputs, read. */
export const LOGITS_ONLY: CandidateRequest = { k: 0, scores: false };

/** One step's answer for every row of the state. */
export interface StepCandidates {
  /** Candidates per row below: the k asked for, or 0 when the decoder answered with logits only (read logits()). */
  k: number;
  /** [rows × k] token ids, best first, ties to the lower id. */
  ids: BigInt64Array;
  /** [rows × k] their logits; [rows] max of each row's logits and log Σ exp(x − max) (scores asked for; else empty). */
  values: Float32Array;
  max: Float32Array;
  logSum: Float32Array;
  /** The step's logits, [rows × vocab] (computed again when the step answered with candidates). */
  logits(): Promise<Float32Array>;
}

/** Greedy steps to take in one go: every row that is not done bans the same ids at each of them. */
export interface GreedyRunRequest {
  steps: number;
  banned: readonly number[];
  /** Rows already finished (fed padding). */
  done: readonly boolean[];
}

/** Beam steps to take in one go (rows are sentences × beams, grouped). */
export interface BeamRunRequest extends GreedyRunRequest {
  beams: number;
  /** Each row's beam score. */
  scores: readonly number[];
  /** Candidates per row each step reads (as CandidateRequest.k with scores). */
  m: number;
}

/** A beam run's answer: each step's candidates, and the choice the graph made after each (cache row followed, token). */
export interface BeamRun {
  stepped: StepCandidates[];
  chosenFrom: number[][];
  chosenIds: number[][];
}

export interface SearchDecoder {
  /** Encodes the source rows and starts decoding, each row `copies` times (beam search: one copy a beam, grouped). */
  begin(sources: readonly number[][], copies?: number): Promise<DecoderState>;
  /** Feeds one token per row and advances the cache by one step. */
  step(state: DecoderState, tokens: readonly number[], want: CandidateRequest): Promise<StepCandidates>;
  /**
   * Up to `steps` greedy steps in one go: each row not done takes its best candidate not banned, a row choosing EOS
   * is done from then on; the run ends early when every row is, or DROP_FINISHED_SHARE of them. The tokens chosen,
   * one array per step ([rows], padding for done rows), and the cache advanced by that many steps; undefined when
   * this decoder takes single steps (it then always does: search need not ask again).
   */
  greedyRun(state: DecoderState, tokens: readonly number[], run: GreedyRunRequest): Promise<number[][] | undefined>;
  /**
   * Up to `steps` beam steps in one go, chosen as beam search chooses when no hypothesis finishes (graph/beam-loop.ts);
   * the cache advanced by the steps run and reordered by every choice but the last one's, which the search makes.
   * Undefined when this decoder takes single steps (it then always does: search need not ask again).
   */
  beamRun(state: DecoderState, tokens: readonly number[], run: BeamRunRequest): Promise<BeamRun | undefined>;
  /** Row i of the cache becomes old row `from[i]` (beam search's choice). */
  reorder(state: DecoderState, from: readonly number[]): void;
  /** Keeps only these rows (finished rows stop costing compute). */
  select(state: DecoderState, rows: readonly number[]): void;
}
