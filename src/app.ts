// The composition root: configuration in, a listening server out. Everything the process is made of is built
// here, once (the logger, the database (src/storage) and the account, glossary, memory and job stores on it, the engine,
// detector and planners, then accounts, gate, glossaries, service and document jobs over them) and handed to
// buildServer (src/http/server.ts), which only wires routes. Used by `dragoman serve` and by black-box tests (which pass port 0, a temp data dir and a clock
// they control).
import type { FastifyInstance } from 'fastify';
import { Accounts } from './accounts/accounts.ts';
import { type Clock, systemClock } from './accounts/clock.ts';
import { Gate, type GateOptions } from './accounts/gate.ts';
import { accountStore } from './accounts/index.ts';
import type { AccountStore } from './accounts/store.ts';
import type { Config } from './config/env.ts';
import { createDetector } from './detect/index.ts';
import type { LanguageDetector } from './detect/types.ts';
import { DocumentJobs, jobStore, type JobStore } from './documents/index.ts';
import { createEngine } from './engine/index.ts';
import type { Engine } from './engine/types.ts';
import { buildServer, type ServerDeps } from './http/server.ts';
import { createLogger, type LoggerSetting } from './observability/logger.ts';
import type { DemoInfo } from './models/demo.ts';
import { serviceFromConfig } from './service/index.ts';
import type { Planners } from './service/types.ts';
import { offloadedPlanners } from './text/offload/index.ts';
import { glossaryBook, glossaryStore, type GlossaryStore } from './glossaries/index.ts';
import { memoryBook, memoryStore, type MemoryBook, type MemoryStore } from './memories/index.ts';
import { openStorage, type Storage } from './storage/index.ts';

export interface AppOptions {
  clock?: Clock;
  /** JSON lines at DRAGOMAN_LOG_LEVEL by default; false: none (tests), or the same options to a stream of the test's. */
  logger?: LoggerSetting;
  gate?: GateOptions;
  /** Tests only: wrap the real engine (e.g. to make one call fail and check the 500 path). */
  wrapEngine?: (engine: Engine) => Engine;
  /** Tests only: how long a request may take to arrive whole (60 s). */
  requestTimeoutMs?: number;
  /** The models served are the demo ones (src/models/demo.ts): said in /health, /v1/languages and on the page. */
  demo?: DemoInfo;
}

export interface RunningApp {
  server: FastifyInstance;
  /** http://host:port (https:// with DRAGOMAN_TLS_*) actually bound (port 0 resolved). */
  url: string;
  engine: Engine;
  store: AccountStore;
  /** The database the stores are on (closed after them). */
  storage: Storage;
  close(): Promise<void>;
}

/** What the domain parts are made of: the opened stores, the engine, the detector, the planners and the logger. */
export interface Foundations {
  config: Config;
  engine: Engine;
  detector: LanguageDetector;
  store: AccountStore;
  planners: Planners;
  jobStore: JobStore;
  /** Without it, glossary endpoints answer that none are kept. */
  glossaries?: GlossaryStore;
  /** A key's translation memories over their store; without them, memory endpoints answer that none are kept. */
  memories?: MemoryBook;
  clock?: Clock;
  gate?: GateOptions;
  log: ServerDeps['log'];
  /** The models are the demo ones (src/models/demo.ts). */
  demo?: DemoInfo;
}

/** Accounts, gate, glossaries, service and document jobs over the foundations: everything buildServer is handed. */
export function assemble(f: Foundations): ServerDeps {
  const { config, engine, detector, log } = f;
  const clock = f.clock ?? systemClock;
  const accounts = new Accounts(f.store, clock);
  const gate = new Gate(accounts, { keylessPerMinute: config.keylessPerMinute, ...f.gate });
  // The same settings as `dragoman translate` (serviceFromConfig): a document comes out the same both ways.
  const service = serviceFromConfig({
    config,
    engine,
    detector,
    planners: f.planners,
    ...(f.glossaries ? { glossaries: glossaryBook(f.glossaries, config) } : {}),
    ...(f.memories ? { memories: f.memories } : {}),
    // Memory characters are counted in the quota period of the accounts' clock.
    now: () => clock.now(),
  });
  const documents = new DocumentJobs({ settings: config, service, gate, store: f.jobStore, clock, log });
  return { config, service, accounts, gate, engine, detector, clock, documents, log, ...(f.demo && { demo: f.demo }) };
}

export async function startApp(config: Config, options: AppOptions = {}): Promise<RunningApp> {
  const storage = await openStorage(config);
  const store = accountStore(storage, config);
  const glossaries = glossaryStore(storage);
  const memories: MemoryStore = memoryStore(storage);
  let engine: Engine | undefined;
  // Long texts are planned and assembled on a worker thread, off the event loop (text/offload).
  const planners = offloadedPlanners();
  try {
    const book = memoryBook(memories, config);
    const real = await createEngine(config);
    engine = options.wrapEngine ? options.wrapEngine(real) : real;
    const detector = await createDetector({ secondOpinion: config.detectSecondOpinion });
    const parts = assemble({
      config,
      engine,
      detector,
      store,
      planners: { text: planners.text, html: planners.html },
      jobStore: jobStore(storage),
      glossaries,
      memories: book,
      clock: options.clock,
      gate: options.gate,
      log: createLogger(config, options.logger),
      demo: options.demo,
    });
    const server = await buildServer({ ...parts, requestTimeoutMs: options.requestTimeoutMs });
    await server.listen({ host: config.host, port: config.port });
    // What memory imports killed mid-way left behind (never visible to a key) is removed once it is surely abandoned;
    // a database away at start neither stops nor holds back the server (the next start sweeps).
    void book.sweep().catch((err: unknown) => server.log.warn({ err }, 'memory imports left by a stopped server not swept'));
    // Every folder the engine found, once: a model that did not load says where and why (the reason names files and
    // onnxruntime's message, never request data).
    for (const m of engine.models()) {
      if (m.status !== 'ok') server.log.warn({ model: m.name, path: m.path, status: m.status, problem: m.problem }, 'model not loaded');
      else if (m.loaded) server.log.info({ model: m.name, family: m.family, precision: m.precision, loadMs: m.loadMs }, 'model loaded');
      else server.log.info({ model: m.name, family: m.family, precision: m.precision }, 'model installed: loaded on its first request (DRAGOMAN_MODEL_MEMORY)');
    }
    // Models loaded on demand, unloaded for room or removal, and the models folder changing while serving.
    real.events.on('modelLoaded', (e: { name: string; ms: number }) => server.log.info({ model: e.name, loadMs: e.ms }, 'model loaded'));
    real.events.on('modelUnloaded', (e: { name: string; reason: string }) => server.log.info({ model: e.name, reason: e.reason }, 'model unloaded'));
    real.events.on('modelLoadFailed', (e: { name: string; problem: string }) => server.log.error({ model: e.name, problem: e.problem }, 'model not loaded'));
    real.events.on('modelsChanged', (e: { added: string[]; removed: string[] }) => server.log.info(e, 'models folder changed: routes updated'));
    real.events.on('modelsWatchFailed', (e: { problem: string }) => server.log.warn(e, 'models folder could not be read; the next rescan tries again'));
    // DRAGOMAN_AMX (engine/amx.ts): which int8 kernels onnxruntime runs explains a 2x difference in decoding speed.
    const amxLog = real.amx.state === 'unavailable' || real.amx.state === 'too late' ? 'warn' : 'info';
    server.log[amxLog]({ amx: real.amx.state }, real.amx.detail);
    real.events.on('workerExit', (e: { restarts: number }) => server.log.error(e, 'engine worker died; replaced'));
    real.events.on('workerLoadFailed', (e: { problem: string }) =>
      server.log.error(e, 'replacement engine worker cannot load the models: translation answers 503 until it can (retried every 5 s)'));
    // DRAGOMAN_SPINNING=auto changing its mind (engine/contention.ts): a shared machine explains slower translations.
    real.events.on('spinning', (e: { spinning: boolean; othersCores: number; worker: number }) =>
      server.log.info({ spinning: e.spinning, othersCores: Math.round(e.othersCores * 100) / 100, worker: e.worker }, e.spinning
        ? 'the cores are free again: onnxruntime threads spin within a run'
        : 'other processes use the cores: onnxruntime threads stop spinning'));
    // DRAGOMAN_UI_KEY: say at start whose quota the page spends, or that the setting names no working key.
    if (config.uiKey) {
      const shared = await store.getKey(config.uiKey);
      if (shared && shared.revokedAt === null) server.log.info({ keyId: shared.id, plan: shared.plan }, 'the web page works without a key: its requests are metered on this key (DRAGOMAN_UI_KEY)');
      else server.log.warn({ keyId: config.uiKey }, `DRAGOMAN_UI_KEY names ${shared ? 'a revoked' : 'no'} key: the web page needs a key from its users`);
    }
    const address = server.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const eng = engine;
    let closed: Promise<void> | undefined;
    return {
      server,
      url: `${config.tls ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
      engine: eng,
      store,
      storage,
      close: () =>
        (closed ??= (async () => {
          await server.close();
          await planners.close();
          await eng.close();
          await glossaries.close();
          await memories.close();
          await store.close();
          await storage.close();
        })()),
    };
  } catch (err) {
    await planners.close();
    await engine?.close().catch(() => undefined);
    await glossaries.close().catch(() => undefined);
    await memories.close().catch(() => undefined);
    await store.close();
    await storage.close();
    throw err;
  }
}
