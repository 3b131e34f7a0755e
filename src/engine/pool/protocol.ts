// Messages between the pool (main thread) and a worker. Plain structured-clone data only.
import type { PreparedDecoder } from '../runtime/prepare.ts';
import type { PreparedCausal } from '../runtime/prepare-causal.ts';
import type { ModelRuntimeSpec } from '../model/runtime-spec.ts';
import type { OutputVocabulary } from '../model/output-vocabulary.ts';
import type { GenerationJob } from '../search/types.ts';
import type { LoadedRuntime } from '../types.ts';
import type { SessionSettings } from '../settings.ts';

/** A model as the pool sends it to a worker: its folder's spec, and its decoder's graphs when they are prepared. */
export type PreparedModelSpec = ModelRuntimeSpec & {
  /** The decoder's graphs as runtime/prepare.ts made them (cached files); absent: the worker prepares them itself. */
  graphs?: PreparedDecoder;
  /** A decoder-only model's graph as runtime/prepare-causal.ts made it; absent: the file as it is. */
  causal?: PreparedCausal;
  /** Its pieces by script, when its output layer runs over each batch's target rows (model/output-vocabulary.ts). */
  vocabulary?: OutputVocabulary;
};

export type ToWorker =
  /**
   * `sent`: one int32 the pool raises each time it sends the worker an interactive job (with priorities), read by
   * the worker while the message may still wait behind a synchronous onnxruntime run (turns.ts).
   */
  | { type: 'init'; settings: SessionSettings; sent: SharedArrayBuffer }
  | { type: 'load'; model: PreparedModelSpec }
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
  /** An interactive job past DRAGOMAN_INTERACTIVE_BUDGET_MS: it takes turns as bulk work now (turns.ts). */
  | { type: 'demoted'; id: number }
  /** DRAGOMAN_SPINNING=auto changed its mind: `spinning` false while other processes use the cores (contention.ts). */
  | { type: 'spinning'; spinning: boolean; othersCores: number };
