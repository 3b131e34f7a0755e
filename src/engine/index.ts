// createEngine wires the engine: the registry, tokenizers, router, cache, batcher and hops in the main thread (translate/),
// each decoder's graphs prepared once (graph/), generation on the pool of worker threads (pool/, runtime/, search/).
// Models are loaded on demand within DRAGOMAN_MODEL_MEMORY (translate/resident-models.ts), and the models folder is
// watched while serving (model/models-watch.ts): the routes change at once when a model is installed or removed.
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { Config } from '../config/env.ts';
import { applyAmxSetting, type AmxStatus } from './runtime/amx.ts';
import { Batcher, type BatchEvent } from './batching/batcher.ts';
import { TranslationCache } from './translate/cache.ts';
import { poolShape } from './pool/cpu-limit.ts';
import { WorkerPool } from './pool/pool.ts';
import type { SessionSettings } from './settings.ts';
import { prepareModel } from './translate/model-load.ts';
import { pruneGraphCache } from './runtime/prepare.ts';
import { scanFolders } from './model/registry.ts';
import { warmTokenizerLibrary } from './model/tokenizer.ts';
import type { ModelFolder } from './model/model-folder.ts';
import { ModelsWatch } from './model/models-watch.ts';
import { ResidentModels, type ResidentStats } from './translate/resident-models.ts';
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
 * 'modelUnloaded' ({name, reason: evicted | removed}), 'modelLoadFailed' ({name, problem}), 'modelsChanged' ({added,
 * removed}: the models folder changed while serving),
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
  /** Models installed and loaded, loads and evictions since start, memory they take against DRAGOMAN_MODEL_MEMORY. */
  modelStats(): ResidentStats;
  /** Looks at DRAGOMAN_MODELS_DIR now instead of at the next change or rescan; resolves once the routes follow it. */
  rescanModels(): Promise<void>;
  /** Test hook: kill a worker (the busy one if any) as if it crashed. */
  crashWorkerForTest(): void;
}

export async function createEngine(config: Config, options: EngineOptions = {}): Promise<DragomanEngine> {
  const events: EngineEvents = new EventEmitter();
  // Before the workers make their first onnxruntime session: the filter covers every thread made later.
  const amx = applyAmxSetting(config.amx);
  const folders = await scanFolders(config.modelsDir, config.precision);
  if (folders.some((f) => f.runtime)) warmTokenizerLibrary();
  const threads = poolShape(config);
  const settings: SessionSettings = {
    intraOpThreads: threads.intraOp, threadsAuto: !config.intraOpThreads, spinning: config.spinning, poolThreads: threads.workers * threads.intraOp,
    skipPasses: config.skipPasses, vocabulary: config.vocabulary,
    turns: { scheduling: config.scheduling, bulkShare: config.bulkShare / 100, yieldMs: config.yieldMs, interactiveBudgetMs: config.interactiveBudgetMs },
  };
  const pool = new WorkerPool(threads.workers, settings);
  await pool.start([]);
  const graphCache = config.graphCacheDir;
  const models = new ResidentModels({
    budget: config.modelMemory, preload: config.preload, workers: threads.workers, events,
    recentFile: join(config.dataDir, 'models-recent.json'),
    prepare: (folder) => prepareModel(pool, folder, settings, graphCache),
    unload: (name) => pool.unload(name),
  });
  // The routes of the usable models, replaced whole (never edited in place) so a request sees one catalog or the other.
  const routerOf = () => new Router(models.usable().map((f) => ({
    name: f.info.name,
    family: f.info.family!,
    sources: new Set(f.info.sources),
    targets: new Set(f.info.targets),
    ...(f.info.pairs ? { pairs: new Set(f.info.pairs.map(([s, t]) => `${s}>${t}`)) } : {}),
  })));
  models.replace(folders);
  await models.preload();
  if (graphCache) pruneGraphCache(graphCache);
  let router = routerOf();
  // A model found broken when it loads leaves the routes.
  events.on('modelLoadFailed', () => {
    router = routerOf();
  });
  const watch = new ModelsWatch(config.modelsDir, config.precision, folders, (now: ModelFolder[]) => {
    const change = models.replace(now);
    router = routerOf();
    if (change.added.length || change.removed.length) events.emit('modelsChanged', change);
  }, (err) => events.emit('modelsWatchFailed', { problem: err.message }));
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

    translate: (segments, source, target, opts = {}) => translateRoute({ router, hops, models, events }, segments, source, target, opts),

    route: (source, target, choice) => router.route(source, target, choice),
    sourceLanguages: () => router.sources(),
    targetLanguages: (source) => router.targets(source),
    models: () => models.folders().map((f) => ({ ...f.info, loaded: models.isLoaded(f.info.name), ...models.model(f.info.name) })),
    modelStats: () => models.stats(),
    rescanModels: () => watch.scan(),
    stats: () => ({ workers: threads.workers, workersAlive: pool.alive(), queueDepth: batcher.depth, queued: batcher.queued(), workerRestarts: pool.restarts }),
    cacheStats: () => ({ size: cache.size, hits: cache.hits, misses: cache.misses }),
    crashWorkerForTest: () => pool.crashOne(),
    async close() {
      watch.close();
      models.flush();
      batcher.close();
      await pool.close();
    },
  };
  return engine;
}
