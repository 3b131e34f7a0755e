// Messages between the pool (main thread) and a worker. Plain structured-clone data only.
import type { Spinning } from '../../config/env.ts';
import type { PreparedDecoder } from '../graph/prepare.ts';
import type { DecoderDims, GenerationRules } from '../model/family.ts';
import type { LoadedRuntime, Priority } from '../types.ts';
import type { RowConstraints } from '../search/constraints.ts';

/** Everything a worker needs to open one model's ONNX sessions. */
export type ModelRuntimeSpec = Seq2SeqSpec | DecoderOnlySpec;

/** An encoder-decoder model: its encoder and merged decoder (runtime/seq2seq.ts). */
export interface Seq2SeqSpec {
  kind: 'encoder-decoder';
  name: string;
  encoderPath: string;
  decoderPath: string;
  rules: GenerationRules;
  dims: DecoderDims;
  /** fileStamp (file-stamp.ts) of both files when the folder was read: a worker loading later checks them. */
  stamps: { encoder: string; decoder: string };
  /** The decoder's graphs as graph/prepare.ts made them (cached files); absent: the worker prepares them itself. */
  graphs?: PreparedDecoder;
}

/** A decoder-only translator: one graph with its KV cache (runtime/causal-lm.ts). */
export interface DecoderOnlySpec {
  kind: 'decoder-only';
  name: string;
  modelPath: string;
  /** optimum: `past_key_values.*` and position ids, rows batched with padding; genai: the model builder's graph
   * (GroupQueryAttention reads positions from the attention mask), each row run on its own. */
  layout: 'optimum' | 'genai';
  rules: GenerationRules;
  /** Its KV cache: layers, key/value heads, head size. */
  dims: DecoderDims;
  stamps: { model: string };
}

export interface SessionSettings {
  intraOpThreads: number;
  /** The thread count was chosen by Dragoman, not configured: small models then run on one thread (seq2seq.ts). */
  threadsAuto: boolean;
  spinning: Spinning;
  /** onnxruntime threads the whole pool runs at once (workers × threads): what `auto` spinning weighs others against. */
  poolThreads: number;
  /** Graph rewrites left out (DRAGOMAN_SKIP_PASSES: names of graph/passes.ts); absent = none. */
  skipPasses?: readonly string[];
  /** How jobs share a worker (turns.ts); absent = first come, first served. */
  turns?: TurnSettings;
}

/** DRAGOMAN_SCHEDULING, DRAGOMAN_BULK_SHARE and DRAGOMAN_YIELD_MS, as a worker and the pool read them. */
export interface TurnSettings {
  scheduling: 'priority' | 'fifo';
  /** Least share of the worker's time (0–1) bulk work gets while interactive work waits too. */
  bulkShare: number;
  /** Longest a bulk job runs between two turns, in ms. */
  yieldMs: number;
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
  /** Absent: interactive. */
  priority?: Priority;
}

export type ToWorker =
  | { type: 'init'; settings: SessionSettings }
  | { type: 'load'; model: ModelRuntimeSpec }
  | { type: 'run'; id: number; job: GenerationJob }
  /** Close a model's sessions (evicted past DRAGOMAN_MODEL_MEMORY, or removed from the models folder). */
  | { type: 'unload'; name: string }
  /** Leave between two decoder steps (terminate() during a native onnxruntime run aborts the whole process). */
  | { type: 'exit' }
  /** Test hook: the worker dies as if onnxruntime had crashed. */
  | { type: 'crash' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'loaded'; name: string; ms: number; runtime: LoadedRuntime }
  | { type: 'loadFailed'; name: string; message: string }
  | { type: 'unloaded'; name: string }
  /** Per row, hypotheses (generated ids, decoder start excluded) best first. */
  | { type: 'result'; id: number; hypotheses: number[][][]; ms: number }
  | { type: 'failed'; id: number; message: string }
  /** DRAGOMAN_SPINNING=auto changed its mind: `spinning` false while other processes use the cores (contention.ts). */
  | { type: 'spinning'; spinning: boolean; othersCores: number };
