// Black-box harness: the real app (real engine on the fixture models, real detector, real SQLite in a temp
// dir) listening on an ephemeral port, a clock the test moves, and a fetch wrapper.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Accounts, type CreateKeyInput } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { startApp, type AppOptions, type RunningApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config/env.ts';
import { freshDatabase } from '../postgres/pg-helpers.ts';
import { FIXTURE_MODELS_DIR, TEST_GRAPH_CACHE, coreModelsDir } from '../fixture-models.ts';

/** Every fixture model, to read files from; the servers serve the three core ones (test/fixture-models.ts). */
export const FIXTURE_MODELS = FIXTURE_MODELS_DIR;

/**
 * The config every in-process test server starts from: an ephemeral port, `dataDir`, the fixture models, one
 * single-threaded worker (the suites share two cores), no logs; `env` overrides any of it.
 */
export function fixtureConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    DRAGOMAN_PORT: '0',
    DRAGOMAN_DATA_DIR: dataDir,
    DRAGOMAN_MODELS_DIR: coreModelsDir(),
    DRAGOMAN_GRAPH_CACHE_DIR: TEST_GRAPH_CACHE,
    DRAGOMAN_WORKERS: '1',
    DRAGOMAN_INTRA_OP_THREADS: '1',
    DRAGOMAN_LOG_LEVEL: 'silent',
    ...env,
  });
}

export interface TestApp {
  app: RunningApp;
  url: string;
  clock: ManualClock;
  dataDir: string;
  accounts: Accounts;
  key(input?: Partial<CreateKeyInput>): Promise<{ id: string; secret: string }>;
  call(method: string, path: string, init?: CallInit): Promise<Reply>;
  close(): Promise<void>;
}

export interface CallInit {
  key?: string;
  body?: unknown;
  /** Raw body (sent as is). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export async function startTestApp(env: Record<string, string> = {}, options: AppOptions = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-api-'));
  // The vitest project "api-on-postgres" runs these suites again with the PostgreSQL account store.
  const pg = process.env.DRAGOMAN_TEST_BACKEND === 'postgres' ? await freshDatabase() : undefined;
  const config = fixtureConfig(dataDir, { ...(pg ? { DRAGOMAN_DATABASE_URL: pg.url } : {}), ...env });
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock();
  const started = await startFixtureApp(config, dataDir, { logger: false, ...options, clock }, async () => {
    await pg?.drop();
  });
  const url = started.app.url;
  return { ...started, url, clock, dataDir, call: (method, path, init = {}) => call(url, method, path, init) };
}

/** An app started by a test harness: keys made through the real account layer on the test's clock. */
export interface StartedApp {
  app: RunningApp;
  accounts: Accounts;
  /** A key on the pro plan, unless `input` says otherwise. */
  key(input?: Partial<CreateKeyInput>): Promise<{ id: string; secret: string }>;
  /** Stops the app, then removes its data folder and whatever `cleanUp` adds. */
  close(): Promise<void>;
}

/** The app on `config`, whose data folder `dataDir` belongs to the test and goes when the app closes. */
export async function startFixtureApp(
  config: Config,
  dataDir: string,
  options: AppOptions & { clock: ManualClock },
  cleanUp?: () => Promise<void>,
): Promise<StartedApp> {
  const app = await startApp(config, options);
  const accounts = new Accounts(app.store, options.clock);
  return {
    app,
    accounts,
    async key(input = {}) {
      const { key, secret } = await accounts.createKey({ plan: 'pro', ...input });
      return { id: key.id, secret };
    },
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
      await cleanUp?.();
    },
  };
}

export async function call(url: string, method: string, path: string, init: CallInit = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key !== undefined) headers['x-api-key'] = init.key;
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text, the test will say so
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** The /v1 error body contract: code = status, one of the five types, a message. */
export function expectErrorShape(r: Reply, status: number, type: string): string {
  if (r.status !== status || r.body?.error?.code !== status || r.body?.error?.type !== type) {
    throw new Error(`expected ${status} ${type}, got ${r.status} ${JSON.stringify(r.body)}`);
  }
  if (!String(r.headers.get('content-type')).startsWith('application/json')) {
    throw new Error(`error without JSON content type: ${r.headers.get('content-type')}`);
  }
  if (Object.keys(r.body).length !== 1 || Object.keys(r.body.error).sort().join() !== 'code,message,type') {
    throw new Error(`error body has other fields: ${JSON.stringify(r.body)}`);
  }
  return r.body.error.message as string;
}
