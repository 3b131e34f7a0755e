// Black-box harness shared by the Google v2 and LibreTranslate suites: the real app (engine on the fixture
// models, real detector, real SQLite in a temp dir) on an ephemeral port, a clock the test owns, keys made
// through the real account layer, and a small fetch wrapper for the hand-made requests.
import type { FastifyInstance } from 'fastify';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Accounts, CreateKeyInput } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { assemble, type AppOptions, type RunningApp } from '../../src/app.ts';
import type { Config } from '../../src/config/env.ts';
import { createDetector } from '../../src/detect/index.ts';
import { jobStore } from '../../src/documents/index.ts';
import { buildServer, loggerOptions } from '../../src/http/server.ts';
import { createLogger } from '../../src/observability/logger.ts';
import type { Service } from '../../src/service/index.ts';
import { planHtml } from '../../src/text/html/index.ts';
import { planText } from '../../src/text/segment.ts';

export { FIXTURE_MODELS } from '../api/helpers.ts';
import { fixtureConfig, startFixtureApp } from '../api/helpers.ts';
import { freshDatabase } from '../postgres/pg-helpers.ts';

export interface CompatServer {
  app: RunningApp;
  url: string;
  config: Config;
  clock: ManualClock;
  accounts: Accounts;
  service: Service;
  key(input?: Partial<CreateKeyInput>): Promise<{ id: string; secret: string }>;
  close(): Promise<void>;
}

export interface CompatOptions extends AppOptions {
  /** Collect the server's JSON log lines here (the production logger options, at DRAGOMAN_LOG_LEVEL). */
  logLines?: string[];
}

export async function startCompatServer(env: Record<string, string> = {}, options: CompatOptions = {}): Promise<CompatServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-compat-'));
  // The vitest project "api-on-postgres" runs the suites that opt in again with accounts, glossaries, memories and
  // job records in PostgreSQL.
  const pg = process.env.DRAGOMAN_TEST_BACKEND === 'postgres' ? await freshDatabase() : undefined;
  const config = fixtureConfig(dataDir, { DRAGOMAN_PRECISION: 'fp32', ...(pg ? { DRAGOMAN_DATABASE_URL: pg.url } : {}), ...env });
  const clock = new ManualClock();
  const { logLines, ...appOptions } = options;
  const logger = logLines
    ? { ...(loggerOptions(config) as object), stream: { write: (line: string) => void logLines.push(line) } }
    : false;
  const started = await startFixtureApp(config, dataDir, { logger, ...appOptions, clock }, async () => {
    await pg?.drop();
  });
  return { ...started, url: started.app.url, config, clock, service: started.app.server.dragoman.service };
}

/**
 * A second server, not listening (for app.inject), over the running one's engine and account store with some
 * settings changed: how a suite sees a setting that is read once at start.
 */
export async function serverWith(server: CompatServer, changed: Partial<Config>): Promise<FastifyInstance> {
  const config = { ...server.config, ...changed };
  return buildServer(
    assemble({
      config,
      engine: server.app.engine,
      detector: await createDetector(),
      store: server.app.store,
      planners: { text: planText, html: planHtml },
      jobStore: jobStore(server.app.storage),
      log: createLogger(config, false),
    }),
  );
}

/** What the service itself answers for these fields: the reference a thin wire format must reproduce. */
export async function reference(
  service: Service,
  q: string | string[],
  target: string,
  source?: string,
  format: 'text' | 'html' = 'text',
): Promise<string[]> {
  const result = await service.translate(service.prepareTranslate({ q, target, source, format }));
  return result.translations.map((t) => t.translatedText);
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function send(url: string, init: { method?: string; headers?: Record<string, string>; json?: unknown; form?: string | Buffer } = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | Buffer | undefined;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  } else if (init.form !== undefined) {
    body = init.form;
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  }
  const payload = typeof body === 'string' || body === undefined ? body : new Uint8Array(body);
  return replyOf(await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body: payload }));
}

/** A response read whole: its body parsed as JSON when it is JSON (undefined otherwise), and as text. */
export async function replyOf(res: Response): Promise<Reply> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
