// startApp(config): config → account store → engine → detector → HTTP server, listening. Used by
// `dragoman serve` and by black-box tests (which pass port 0, a temp data dir and a clock they control).
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Clock } from './accounts/clock.ts';
import type { GateOptions } from './accounts/gate.ts';
import { openAccountStore } from './accounts/index.ts';
import type { AccountStore } from './accounts/store.ts';
import type { Config } from './config/env.ts';
import { createDetector } from './detect/index.ts';
import { createEngine } from './engine/index.ts';
import type { Engine } from './engine/types.ts';
import { buildServer } from './http/server.ts';
import { offloadedPlanners } from './text/offload/index.ts';
import { glossaryBook, openGlossaryStore, type GlossaryStore } from './glossaries/index.ts';
import { memoryBook, openMemoryStore, type MemoryStore } from './memories/index.ts';

export interface AppOptions {
  clock?: Clock;
  logger?: FastifyServerOptions['logger'];
  gate?: GateOptions;
  /** Tests only: wrap the real engine (e.g. to make one call fail and check the 500 path). */
  wrapEngine?: (engine: Engine) => Engine;
  /** Tests only: how long a request may take to arrive whole (60 s). */
  requestTimeoutMs?: number;
}

export interface RunningApp {
  server: FastifyInstance;
  /** http://host:port actually bound (port 0 resolved). */
  url: string;
  engine: Engine;
  store: AccountStore;
  close(): Promise<void>;
}

export async function startApp(config: Config, options: AppOptions = {}): Promise<RunningApp> {
  const store = await openAccountStore(config);
  let engine: Engine | undefined;
  // Long texts are planned and assembled on a worker thread, off the event loop (text/offload).
  const planners = offloadedPlanners();
  let glossaries: GlossaryStore | undefined;
  let memoryStore: MemoryStore | undefined;
  try {
    glossaries = openGlossaryStore(config);
    memoryStore = openMemoryStore(config);
    const memories = memoryBook(memoryStore, config);
    // What imports killed mid-way left behind (never visible to a key) is removed once it is surely abandoned.
    await memories.sweep();
    const real = await createEngine(config);
    engine = options.wrapEngine ? options.wrapEngine(real) : real;
    const detector = await createDetector({ secondOpinion: config.detectSecondOpinion });
    const server = await buildServer({
      config,
      engine,
      detector,
      store,
      planners: { text: planners.text, html: planners.html },
      glossaries: glossaryBook(glossaries, config),
      memories,
      clock: options.clock,
      logger: options.logger,
      gate: options.gate,
      requestTimeoutMs: options.requestTimeoutMs,
    });
    await server.listen({ host: config.host, port: config.port });
    // Every folder the engine found, once: a model that did not load says where and why (the reason names files and
    // onnxruntime's message, never request data).
    for (const m of engine.models()) {
      if (m.status === 'ok') server.log.info({ model: m.name, family: m.family, precision: m.precision, loadMs: m.loadMs }, 'model loaded');
      else server.log.warn({ model: m.name, path: m.path, status: m.status, problem: m.problem }, 'model not loaded');
    }
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
    const glossaryStore = glossaries;
    const memStore = memoryStore;
    let closed: Promise<void> | undefined;
    return {
      server,
      url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
      engine: eng,
      store,
      close: () =>
        (closed ??= (async () => {
          await server.close();
          await planners.close();
          await eng.close();
          await glossaryStore.close();
          await memStore.close();
          await store.close();
        })()),
    };
  } catch (err) {
    await planners.close();
    await engine?.close().catch(() => undefined);
    await glossaries?.close().catch(() => undefined);
    await memoryStore?.close().catch(() => undefined);
    await store.close();
    throw err;
  }
}
