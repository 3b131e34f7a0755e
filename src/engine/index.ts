// createEngine wires the engine: the registry, tokenizers, router, cache, batcher and hops in the main thread (translate/),
// each decoder's graphs prepared once (graph/), generation on the pool of worker threads (pool/, runtime/, search/).
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { Config } from '../config/env.ts';
import { applyAmxSetting, type AmxStatus } from './runtime/amx.ts';
import { Batcher, type BatchEvent } from './batching/batcher.ts';
import { TranslationCache } from './translate/cache.ts';
import { poolShape } from './pool/cpu-limit.ts';
import { WorkerPool } from './pool/pool.ts';
import type { SessionSettings } from './pool/protocol.ts';
import { startModels } from './pool/start-models.ts';
import { scanFolders } from './model/registry.ts';
import { Router } from './translate/router.ts';
import { HopTranslator, type Hop } from './translate/hop.ts';
import { translateRoute } from './translate/route-translation.ts';
import type { Engine } from './types.ts';

export { scanModels } from './model/registry.ts';
export type { BatchEvent } from './batching/batcher.ts';
export { fitPieces } from './translate/long-input.ts';
export { MAX_CACHED_CHARS } from './translate/hop.ts';

export interface EngineOptions {
  /** Benchmark only: every row generates exactly this many tokens (EOS suppressed before it). */
  fixedNewTokens?: number;
}

/**
 * What /metrics and the log can read besides stats(): 'batch' (BatchEvent), 'modelLoaded' ({name, ms, threads}),
 * 'route' (string[]), 'workerExit' ({restarts}), 'workerLoadFailed' ({problem}), 'spinning' ({spinning, othersCores,
 * worker}: DRAGOMAN_SPINNING=auto changed its mind in that worker thread).
 */
export interface EngineEvents extends EventEmitter {}

export interface DragomanEngine extends Engine {
  readonly events: EngineEvents;
  /** Worker threads and onnxruntime threads per worker actually used. */
  readonly threads: { workers: number; intraOp: number };
  /** What DRAGOMAN_AMX did to this process (amx.ts). */
  readonly amx: AmxStatus;
  cacheStats(): { size: number; hits: number; misses: number };
  /** Test hook: kill a worker (the busy one if any) as if it crashed. */
  crashWorkerForTest(): void;
}

export async function createEngine(config: Config, options: EngineOptions = {}): Promise<DragomanEngine> {
  const events: EngineEvents = new EventEmitter();
  // Before the workers make their first onnxruntime session: the filter covers every thread made later.
  const amx = applyAmxSetting(config.amx);
  const folders = await scanFolders(config.modelsDir, config.precision);
  const threads = poolShape(config);
  const settings: SessionSettings = {
    intraOpThreads: threads.intraOp, threadsAuto: !config.intraOpThreads, spinning: config.spinning, poolThreads: threads.workers * threads.intraOp,
    skipPasses: config.skipPasses,
    turns: { scheduling: config.scheduling, bulkShare: config.bulkShare / 100, yieldMs: config.yieldMs },
  };
  const pool = new WorkerPool(threads.workers, settings);
  const loaded = await startModels(pool, folders, settings, join(config.dataDir, 'graphs'), events);

  const router = new Router([...loaded.values()].map((m) => ({
    name: m.info.name,
    family: m.info.family!,
    sources: new Set(m.info.sources),
    targets: new Set(m.info.targets),
  })));
  const cache = new TranslationCache<Hop>(config.cacheSize);
  const batcher = new Batcher(pool, { batchTokens: config.batchTokens, batchWaitMs: config.batchWaitMs, scheduling: config.scheduling });
  const hops = new HopTranslator(cache, batcher, config.beam, options.fixedNewTokens);
  batcher.on('batch', (e: BatchEvent) => events.emit('batch', e));
  // For the log: a worker replaced after a crash, or a replacement that could not load the models.
  pool.on('workerExit', () => events.emit('workerExit', { restarts: pool.restarts }));
  pool.on('workerLoadFailed', (problem: string) => events.emit('workerLoadFailed', { problem }));
  pool.on('spinning', (e: { spinning: boolean; othersCores: number; worker: number }) => events.emit('spinning', e));

  const engine: DragomanEngine = {
    events,
    threads,
    amx,

    translate: (segments, source, target, opts = {}) => translateRoute({ router, hops, loaded, events }, segments, source, target, opts),

    route: (source, target) => router.route(source, target),
    sourceLanguages: () => router.sources(),
    targetLanguages: (source) => router.targets(source),
    models: () => folders.map((f) => ({ ...f.info })),
    stats: () => ({ workers: threads.workers, workersAlive: pool.alive(), queueDepth: batcher.depth, queued: batcher.queued(), workerRestarts: pool.restarts }),
    cacheStats: () => ({ size: cache.size, hits: cache.hits, misses: cache.misses }),
    crashWorkerForTest: () => pool.crashOne(),
    async close() {
      batcher.close();
      await pool.close();
    },
  };
  return engine;
}
