// Messages between the pool (main thread) and a worker. Plain structured-clone data only.
import type { PreparedDecoder } from '../graph/prepare.ts';
import type { DecoderDims, GenerationRules } from '../model/family.ts';
import type { LoadedRuntime, Priority } from '../types.ts';
import type { RowConstraints } from '../search/constraints.ts';
import type { SessionSettings } from '../settings.ts';

/** Everything a worker needs to open one model's ONNX sessions. */
export interface ModelRuntimeSpec {
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
