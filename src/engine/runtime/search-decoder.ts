// The one interface search sees of a model, as CTranslate2's layers::Decoder is seen by its decoding.h: begin a batch
// (prefill), step it over its own state, reading each row's candidates (greedy) or each sentence's ranked candidates
// (beam), reorder and drop rows. It knows nothing of greedy or beam search's books. Runs of many steps in one
// onnxruntime run (the in-graph Loops of search-graphs/) are a capability a decoder offers or not (`runs`), chosen
// once at load; search uses them where its rules allow and takes single steps otherwise. Which graph variant answers
// (optimum's merged file, the split step model, its search outputs, its Loops) is the runtime's business: a step
// answers with candidates when the graph has them and with logits otherwise, and a beam step is always ranked by
// search-graphs/beam-rank.ts.

/**
 * A batch being decoded, as search holds it: each decoder keeps its own state behind this (seq2seq.ts: the encoder
 * output and the KV cache; causal-lm.ts: the prompt's KV cache) and search only hands it back.
 */
export interface DecoderState {
  rows: number;
}

export { DROP_FINISHED_SHARE } from '../search-graphs/loop-io.ts';

/** What a step is asked for: each row's k best tokens, best first, ties to the lower id (0: the logits only). */
export interface CandidateRequest {
  k: number;
}

/** The logits only: what constrained search, and a decoder without search outputs, read. */
export const LOGITS_ONLY: CandidateRequest = { k: 0 };

/** One step's answer for every row of the state. */
export interface StepCandidates {
  /** Candidates per row below: the k asked for, or 0 when the decoder answered with logits only (read logits()). */
  k: number;
  /** [rows × k] token ids, best first, ties to the lower id. */
  ids: BigInt64Array;
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

/** What the rules leave of a sentence's next token at one step (search/logits-processors.ts's rulesAt). */
export interface StepRules {
  forced: number | undefined;
  banned: ReadonlySet<number>;
}

/** A beam step asked for (rows are sentences × beams, grouped by sentence). */
export interface BeamStepRequest {
  beams: number;
  /** The cache row each row continues: the choice made after the previous step. */
  from: readonly number[];
  /** Each row's beam score. */
  scores: readonly number[];
  /** Rows of finished sentences (fed padding). */
  done: readonly boolean[];
  /** Each row's best logits the ranking scores first (search-graphs/beam-rank.ts): 2 × beams, the rules' bans and a margin. */
  candidates: number;
  /** Each sentence's rules at this step (undefined for a finished one). */
  rules: readonly (StepRules | undefined)[];
}

/** Beam steps to take in one go: no rule forces a token, and every sentence bans the same ids at each of them. */
export interface BeamRunRequest extends Omit<BeamStepRequest, 'rules'> {
  steps: number;
  banned: readonly number[];
}

/**
 * One beam step's ranking (search-graphs/beam-rank.ts, Hugging Face's): each sentence's 2 × beams best candidates, best
 * first, as [sentences × 2 × beams] scores (float32), rows of the state they continue, and tokens.
 */
export interface RankedStep {
  values: Float32Array;
  from: BigInt64Array;
  ids: BigInt64Array;
}

export interface SearchDecoder {
  /** Encodes the source rows and starts decoding, each row `copies` times (beam search: one copy a beam, grouped). */
  begin(sources: readonly number[][], copies?: number): Promise<DecoderState>;
  /** Feeds one token per row and advances the cache by one step. */
  step(state: DecoderState, tokens: readonly number[], want: CandidateRequest): Promise<StepCandidates>;
  /** One beam step: the cache reordered by `from`, one token fed per row, the step ranked. */
  beamStep(state: DecoderState, tokens: readonly number[], step: BeamStepRequest): Promise<RankedStep>;
  /** Row i of the cache becomes old row `from[i]` (constrained beam search's choice). */
  reorder(state: DecoderState, from: readonly number[]): void;
  /** Keeps only these rows (finished rows stop costing compute). */
  select(state: DecoderState, rows: readonly number[]): void;
  /** Runs of steps in one go, when this decoder has them (absent: it takes single steps only). */
  readonly runs?: StepRuns;
}

/**
 * Many steps in one onnxruntime run (search-graphs/greedy-loop.ts, beam-loop.ts): an optional capability, each kind
 * present only when the decoder's graphs have its Loop. A run of n steps computes what n single steps compute, and
 * may stop after fewer steps than asked (search takes what it returns).
 */
export interface StepRuns {
  /**
   * Up to `steps` greedy steps: each row not done takes its best candidate not banned, a row choosing EOS is done
   * from then on; the run ends early when every row is, or DROP_FINISHED_SHARE of them. The tokens chosen, one array
   * per step ([rows], padding for done rows), and the cache advanced by that many steps.
   */
  greedy?(state: DecoderState, tokens: readonly number[], run: GreedyRunRequest): Promise<number[][]>;
  /**
   * Up to `steps` beam steps, each ranked as beamStep ranks it: after each, every sentence's first `beams`
   * candidates become its beams (a finished sentence's rows padding), until a step where a live sentence has EOS
   * among them, the last step run.
   */
  beam?(state: DecoderState, tokens: readonly number[], run: BeamRunRequest): Promise<RankedStep[]>;
}
