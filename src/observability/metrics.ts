// Every Prometheus series Dragoman exports, on a registry of its own (not prom-client's global one) so that two
// servers in one process — tests — never share counters.
import { createHistogram, performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Engine } from '../engine/types.ts';

/** What the engine tells about each batch it ran (src/engine batcher's 'batch' event). */
export interface BatchObservation {
  model: string;
  /** interactive or bulk (engine/types.ts Priority). */
  priority: string;
  rows: number;
  sourceTokens: number;
  ms: number;
  /** How long the batch's oldest sentence waited for a worker. */
  waitedMs: number;
}

/** Optional extras of the real engine beyond the Engine interface. */
interface EngineExtras {
  events?: { on(event: string, fn: (arg: never) => void): unknown; off(event: string, fn: (arg: never) => void): unknown };
  cacheStats?: () => { size: number; hits: number; misses: number };
  /** Models installed and loaded, loads and evictions, memory against DRAGOMAN_MODEL_MEMORY (resident-models.ts). */
  modelStats?(): { installed: number; loaded: number; loads: number; evictions: number; collections: number; loadSeconds: number; residentBytes: number; budgetBytes: number | undefined };
}

/** What the document jobs tell (src/documents/jobs.ts DocumentJobs), without importing them. */
export interface JobSource {
  stats(): { queued: number; running: number };
  onOutcome(listener: (outcome: { status: 'done' | 'error'; seconds: number }) => void): () => void;
}

export interface DragomanMetrics {
  registry: Registry;
  /** One finished HTTP request. `route` is the route pattern (`/v1/translate`), never the URL. */
  request(method: string, route: string, status: number, seconds: number): void;
  translated(source: string, target: string, characters: number): void;
  quotaRefused(route: string): void;
  rateLimited(route: string): void;
  /** Stop listening to the engine (server close). */
  detach(): void;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Document translations last seconds to many minutes. */
const JOB_BUCKETS = [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export function createMetrics(engine: Engine, jobs?: JobSource): DragomanMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const extras = engine as Engine & EngineExtras;

  const requests = new Counter({
    name: 'dragoman_http_requests_total',
    help: 'HTTP requests by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'dragoman_http_request_duration_seconds',
    help: 'HTTP request latency by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const characters = new Counter({
    name: 'dragoman_translated_characters_total',
    help: 'Characters translated (as charged) by direction; source "auto" when it was detected',
    labelNames: ['source', 'target'] as const,
    registers: [registry],
  });
  const routes = new Counter({
    name: 'dragoman_translation_routes_total',
    help: 'Engine calls by chosen model route (a>b for a pivot; unchanged when source = target)',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const quota = new Counter({
    name: 'dragoman_quota_refusals_total',
    help: 'Requests refused because the monthly character quota was used up (403 quota_exceeded)',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const rate = new Counter({
    name: 'dragoman_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit (429)',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const batchRows = new Histogram({
    name: 'dragoman_batch_rows',
    help: 'Sentences per engine batch',
    labelNames: ['model'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  });
  const batchTokens = new Histogram({
    name: 'dragoman_batch_source_tokens',
    help: 'Padded source tokens per engine batch (rows x longest row)',
    labelNames: ['model'] as const,
    buckets: [16, 64, 256, 512, 1024, 2048, 4096, 8192],
    registers: [registry],
  });
  const batchSeconds = new Histogram({
    name: 'dragoman_batch_duration_seconds',
    help: 'Time to generate one engine batch',
    labelNames: ['model'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  const queueWait = new Histogram({
    name: 'dragoman_queue_wait_seconds',
    help: 'How long the oldest sentence of an engine batch waited for a worker, per priority',
    labelNames: ['priority'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  // Figures the engine keeps itself are read when Prometheus scrapes, not pushed on every change.
  new Gauge({
    name: 'dragoman_queue_depth',
    help: 'Sentences waiting for an engine worker',
    registers: [registry],
    collect() {
      this.set(engine.stats().queueDepth);
    },
  });
  new Gauge({
    name: 'dragoman_queue_sentences',
    help: 'Sentences waiting for an engine worker, per priority (interactive, bulk)',
    labelNames: ['priority'] as const,
    registers: [registry],
    collect() {
      const queued = engine.stats().queued;
      this.set({ priority: 'interactive' }, queued?.interactive ?? 0);
      this.set({ priority: 'bulk' }, queued?.bulk ?? 0);
    },
  });
  new Gauge({
    name: 'dragoman_workers',
    help: 'Engine worker threads by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = engine.stats();
      this.set({ state: 'configured' }, s.workers);
      this.set({ state: 'alive' }, s.workersAlive);
    },
  });
  let restartsSeen = 0;
  new Counter({
    name: 'dragoman_worker_restarts_total',
    help: 'Engine workers that died and were replaced',
    registers: [registry],
    collect() {
      const now = engine.stats().workerRestarts;
      if (now > restartsSeen) this.inc(now - restartsSeen);
      restartsSeen = Math.max(restartsSeen, now);
    },
  });
  new Gauge({
    name: 'dragoman_model_load_seconds',
    help: 'How long each model took to load, its last load',
    labelNames: ['model'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const m of engine.models()) if (m.loadMs !== undefined) this.set({ model: m.name }, m.loadMs / 1000);
    },
  });
  new Gauge({
    name: 'dragoman_models',
    help: 'Model folders installed, by status (ok = usable; dragoman_models_loaded says which are loaded)',
    labelNames: ['status'] as const,
    registers: [registry],
    collect() {
      const counts = { ok: 0, incomplete: 0, corrupt: 0 };
      for (const m of engine.models()) counts[m.status]++;
      for (const [status, n] of Object.entries(counts)) this.set({ status }, n);
    },
  });
  new Gauge({
    name: 'dragoman_model_loaded_bytes',
    help: 'Estimated memory of each loaded model, all workers together (what it counts for in DRAGOMAN_MODEL_MEMORY)',
    labelNames: ['model'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const m of engine.models()) if (m.loaded && m.memoryBytes !== undefined) this.set({ model: m.name }, m.memoryBytes);
    },
  });
  // The engine counts requests per model since start (across unloads); the counter adds what each gained since the
  // previous scrape, so a model removed and installed again keeps counting up.
  const servedSeen = new Map<string, number>();
  new Counter({
    name: 'dragoman_model_requests_total',
    help: 'Requests routed through each installed model (a pivot counts for both of its models)',
    labelNames: ['model'] as const,
    registers: [registry],
    collect() {
      for (const m of engine.models()) {
        if (m.requests === undefined) continue;
        const seen = servedSeen.get(m.name) ?? 0;
        if (m.requests > seen) this.inc({ model: m.name }, m.requests - seen);
        servedSeen.set(m.name, Math.max(seen, m.requests));
      }
    },
  });
  if (extras.modelStats) {
    const modelStats = extras.modelStats.bind(engine);
    new Gauge({
      name: 'dragoman_models_loaded',
      help: 'Models loaded in the engine workers now',
      registers: [registry],
      collect() {
        this.set(modelStats().loaded);
      },
    });
    new Gauge({
      name: 'dragoman_model_memory_bytes',
      help: 'Estimated memory of the loaded models (resident) and DRAGOMAN_MODEL_MEMORY (budget; absent when unlimited)',
      labelNames: ['kind'] as const,
      registers: [registry],
      collect() {
        const s = modelStats();
        this.set({ kind: 'resident' }, s.residentBytes);
        if (s.budgetBytes !== undefined) this.set({ kind: 'budget' }, s.budgetBytes);
      },
    });
    // Totals the engine keeps: each counter adds what it gained since the previous scrape.
    const totals = (name: string, help: string, read: (s: ReturnType<typeof modelStats>) => number) => {
      let seen = 0;
      new Counter({
        name, help, registers: [registry],
        collect() {
          const now = read(modelStats());
          if (now > seen) this.inc(now - seen);
          seen = Math.max(seen, now);
        },
      });
    };
    totals('dragoman_model_loads_total', 'Models loaded since start (at start and on demand)', (s) => s.loads);
    totals('dragoman_model_evictions_total', 'Models unloaded to keep within DRAGOMAN_MODEL_MEMORY', (s) => s.evictions);
    totals('dragoman_model_heap_collections_total', 'Full collections of the main thread heap run after model unloads', (s) => s.collections);
    totals('dragoman_model_load_seconds_total', 'Time spent loading models since start', (s) => s.loadSeconds);
  }
  if (extras.cacheStats) {
    const cacheStats = extras.cacheStats.bind(engine);
    let seen = { hits: 0, misses: 0 };
    new Counter({
      name: 'dragoman_translation_cache_lookups_total',
      help: 'Translation cache lookups by result',
      labelNames: ['result'] as const,
      registers: [registry],
      collect() {
        const now = cacheStats();
        if (now.hits > seen.hits) this.inc({ result: 'hit' }, now.hits - seen.hits);
        if (now.misses > seen.misses) this.inc({ result: 'miss' }, now.misses - seen.misses);
        seen = { hits: Math.max(seen.hits, now.hits), misses: Math.max(seen.misses, now.misses) };
      },
    });
  }

  // How late the event loop ran its timers since the previous scrape: a request that holds the loop (parsing,
  // planning, tokenizing) delays every other one, GET /health included. Our own 10 ms tick rather than
  // monitorEventLoopDelay, whose reset() also forgets the previous tick's time: a stall that began right after a
  // scrape, before its first tick, went unrecorded.
  const TICK_MS = 10;
  const lag = createHistogram();
  let lastTick = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    lag.record(Math.max(1, Math.round((now - lastTick - TICK_MS) * 1e6)));
    lastTick = now;
  }, TICK_MS);
  ticker.unref();
  new Gauge({
    name: 'dragoman_event_loop_lag_seconds',
    help: 'Event loop delay since the previous scrape (a 10 ms timer\'s lateness): p50, p99 and max',
    labelNames: ['quantile'] as const,
    registers: [registry],
    collect() {
      // A stall still under way counts too: the tick it holds back has not run yet.
      const pending = Math.max(0, performance.now() - lastTick - TICK_MS) * 1e6;
      const seconds = (ns: number) => (Number.isFinite(ns) && lag.count > 0 ? ns / 1e9 : 0);
      this.set({ quantile: '0.5' }, seconds(lag.percentile(50)));
      this.set({ quantile: '0.99' }, seconds(lag.percentile(99)));
      this.set({ quantile: 'max' }, Math.max(seconds(lag.max), pending / 1e9));
      lag.reset();
    },
  });

  let stopJobs = (): void => undefined;
  if (jobs) {
    new Gauge({
      name: 'dragoman_document_jobs',
      help: 'Document jobs on this server by state: queued (waiting for it) or running (being translated)',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const s = jobs.stats();
        this.set({ state: 'queued' }, s.queued);
        this.set({ state: 'running' }, s.running);
      },
    });
    const finished = new Counter({
      name: 'dragoman_document_jobs_finished_total',
      help: 'Document jobs this server ran to their end, by status (done or failed)',
      labelNames: ['status'] as const,
      registers: [registry],
    });
    const seconds = new Histogram({
      name: 'dragoman_document_job_seconds',
      help: 'Time to translate one document job, from its start on this server to done or failed',
      labelNames: ['status'] as const,
      buckets: JOB_BUCKETS,
      registers: [registry],
    });
    // Both statuses exported from the start, so a rate() over them has a series before the first failure.
    for (const status of ['done', 'failed']) finished.inc({ status }, 0);
    stopJobs = jobs.onOutcome((o) => {
      const status = o.status === 'done' ? 'done' : 'failed';
      finished.inc({ status });
      seconds.observe({ status }, o.seconds);
    });
  }

  const onBatch = (e: BatchObservation) => {
    batchRows.observe({ model: e.model }, e.rows);
    batchTokens.observe({ model: e.model }, e.sourceTokens);
    batchSeconds.observe({ model: e.model }, e.ms / 1000);
    queueWait.observe({ priority: e.priority === 'bulk' ? 'bulk' : 'interactive' }, e.waitedMs / 1000);
  };
  const onRoute = (route: string[]) => routes.inc({ route: route.length ? route.join('>') : 'unchanged' });
  extras.events?.on('batch', onBatch as (arg: never) => void);
  extras.events?.on('route', onRoute as (arg: never) => void);

  return {
    registry,
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ method, route }, seconds);
    },
    translated(source, target, n) {
      if (n > 0) characters.inc({ source, target }, n);
    },
    quotaRefused(route) {
      quota.inc({ route });
    },
    rateLimited(route) {
      rate.inc({ route });
    },
    detach() {
      clearInterval(ticker);
      stopJobs();
      extras.events?.off('batch', onBatch as (arg: never) => void);
      extras.events?.off('route', onRoute as (arg: never) => void);
    },
  };
}
