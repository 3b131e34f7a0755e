// What a graph pass is: a rewrite of the step model with its own check, and what every pass is given and returns.
// The list of passes and the order they run in are passes.ts's; this file holds only their shape, so that each
// pass and the list can import it without importing each other.
import type ort from 'onnxruntime-node';
import type { DecoderDims } from '../model/family.ts';

/** Which rewrites the settings leave out (DRAGOMAN_SKIP_PASSES, docs/tuning.md): `split` and pass names. */
export interface GraphSettings {
  skip: readonly string[];
  /** The output projection over a chosen subset of the vocabulary (output-subset.ts): DRAGOMAN_VOCABULARY=target on a many-script model. */
  outputSubset?: boolean;
}

/** What the runtime needs to know of the graphs it opens. */
export interface GraphFacts {
  /** The passes applied, in order (`split` first). */
  passes: string[];
  signedWeights: boolean;
  /** Attention blocks running as one MultiHeadAttention operator each. */
  fusedAttention: number;
  /** The step model has the search outputs. */
  search: boolean;
  /** The step model runs inside greedy search's Loop (and beam search's beside it): with its logits' length. */
  loop?: { vocab: number; beam: boolean };
  /** The step model's output projection runs over its `vocab_ids` input (output-subset.ts): with the vocabulary's length. */
  outputSubset?: number;
}

/** The split decoder as the passes leave it. */
export interface StepGraphs {
  /** From the encoder output to the cross-attention K/V, run once a batch. */
  crossKv: Uint8Array;
  /** The with-past step model (what the Loops wrap). */
  step: Uint8Array;
  /** What the runtime opens: the step model, or the step model inside the search Loops. */
  model: Uint8Array;
  facts: GraphFacts;
}

export interface PassContext {
  decoderPath: string;
  decoderBytes: number;
  dims: DecoderDims;
  padId: number;
  eosId: number | undefined;
  settings: GraphSettings;
  /** An onnxruntime session of `bytes` for a check (one thread, no spinning), released by the caller. */
  open(bytes: Uint8Array): Promise<ort.InferenceSession>;
  /** The cross-attention K/V model's session, for test batches. */
  crossKv: ort.InferenceSession;
}

export interface GraphPass {
  name: string;
  /** Bumped whenever the pass's output changes: it is part of the cache key. */
  version: number;
  /** Whether the model and the graphs so far allow it (the settings' skip list is runPasses' business). */
  wanted(ctx: PassContext, graphs: StepGraphs): boolean;
  /** The graphs rewritten and checked, or undefined to leave them as they are. */
  run(graphs: StepGraphs, ctx: PassContext): Promise<StepGraphs | undefined>;
}
