// Messages between the pool (main thread) and a worker. Plain structured-clone data only.
import type { Spinning } from '../config/env.ts';
import type { DecoderDims, GenerationRules } from './family.ts';
import type { LoadedRuntime } from './types.ts';
import type { RowConstraints } from './search/constraints.ts';

/** Everything a worker needs to open one model's ONNX sessions. */
export interface ModelRuntimeSpec {
  name: string;
  encoderPath: string;
  decoderPath: string;
  rules: GenerationRules;
  dims: DecoderDims;
  /** fileStamp (file-stamp.ts) of both files when the folder was read: a worker loading later checks them. */
  stamps: { encoder: string; decoder: string };
}

export interface SessionSettings {
  intraOpThreads: number;
  /** The thread count was chosen by Dragoman, not configured: small models then run on one thread (seq2seq.ts). */
  threadsAuto: boolean;
  spinning: Spinning;
  /** onnxruntime threads the whole pool runs at once (workers × threads): what `auto` spinning weighs others against. */
  poolThreads: number;
  /** Run a merged decoder cut in two without its If (decoder-split.ts). */
  splitDecoder: boolean;
  /** Replace the split decoder's attention blocks by MultiHeadAttention (attention-fusion.ts). */
  fuseAttention: boolean;
  /** Add a TopK of the logits to the split decoder for greedy search (top-candidates.ts). */
  greedyTopK: boolean;
  /** Beam search's candidates from the decoder (top-candidates.ts) instead of JavaScript over all logits. */
  beamTopK: boolean;
  /** Greedy search runs several steps in one onnxruntime run (greedy-loop.ts); absent = off. */
  greedyLoop?: boolean;
  /** Beam search runs several steps in one onnxruntime run (beam-loop.ts); absent = off. */
  beamLoop?: boolean;
}

/** One source sentence, already tokenized, with its own limits. */
export interface GenerationRow {
  ids: number[];
  maxNewTokens: number;
  minNewTokens: number;
  forcedFirstId: number | undefined;
  /** Phrases the output must contain (search/constraints.ts): such rows go to search/constrained-beam.ts. */
  constraints?: RowConstraints;
}

export interface GenerationJob {
  model: string;
  rows: GenerationRow[];
  /** 1 = greedy. */
  beams: number;
  /** Hypotheses to return per row (<= beams), best first. */
  nBest: number;
}

export type ToWorker =
  | { type: 'init'; settings: SessionSettings }
  | { type: 'load'; model: ModelRuntimeSpec }
  | { type: 'run'; id: number; job: GenerationJob }
  /** Leave between two decoder steps (terminate() during a native onnxruntime run aborts the whole process). */
  | { type: 'exit' }
  /** Test hook: the worker dies as if onnxruntime had crashed. */
  | { type: 'crash' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'loaded'; name: string; ms: number; runtime: LoadedRuntime }
  | { type: 'loadFailed'; name: string; message: string }
  /** Per row, hypotheses (generated ids, decoder start excluded) best first. */
  | { type: 'result'; id: number; hypotheses: number[][][]; ms: number }
  | { type: 'failed'; id: number; message: string }
  /** DRAGOMAN_SPINNING=auto changed its mind: `spinning` false while other processes use the cores (contention.ts). */
  | { type: 'spinning'; spinning: boolean; othersCores: number }
  /** A model's beam Loop chose otherwise than beam search: stopped in this worker, the request answered without it. */
  | { type: 'beamLoopStopped'; name: string; message: string };
