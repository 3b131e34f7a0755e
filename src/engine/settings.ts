// How the engine's sessions and workers run, as createEngine reads the DRAGOMAN_* settings (src/config) once and
// hands them down: to the pool and every worker (threads, spinning, turns), to the graph preparation (passes left
// out). Plain structured-clone data: it travels to each worker in its first message.
import type { Spinning } from '../config/env.ts';

export interface SessionSettings {
  intraOpThreads: number;
  /** The thread count was chosen by Dragoman, not configured: small models then run on one thread (seq2seq.ts). */
  threadsAuto: boolean;
  spinning: Spinning;
  /** onnxruntime threads the whole pool runs at once (workers × threads): what `auto` spinning weighs others against. */
  poolThreads: number;
  /** Graph rewrites left out (DRAGOMAN_SKIP_PASSES: names of runtime/prepare.ts's PASSES); absent = none. */
  skipPasses?: readonly string[];
  /** DRAGOMAN_VOCABULARY: `target` computes a many-script model's output layer over the rows a batch may write (model/output-vocabulary.ts); absent = full. */
  vocabulary?: 'full' | 'target';
  /** How jobs share a worker (turns.ts); absent = first come, first served. */
  turns?: TurnSettings;
}

/** DRAGOMAN_SCHEDULING, DRAGOMAN_BULK_SHARE, DRAGOMAN_YIELD_MS and DRAGOMAN_INTERACTIVE_BUDGET_MS, as a worker and the pool read them. */
export interface TurnSettings {
  scheduling: 'priority' | 'fifo';
  /** Least share of the worker's time (0–1) bulk work gets while interactive work waits too. */
  bulkShare: number;
  /** Longest a bulk job runs between two turns, in ms. */
  yieldMs: number;
  /** Worker time after which an interactive job takes turns as a bulk one, in ms. */
  interactiveBudgetMs: number;
}
