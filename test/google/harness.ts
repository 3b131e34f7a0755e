// Black-box harness shared by the Google v2 and LibreTranslate suites: the real app (engine on the fixture
// models, real detector, real SQLite in a temp dir) on an ephemeral port, a clock the test owns, keys made
// through the real account layer, and a small fetch wrapper for the hand-made requests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Accounts, type CreateKeyInput } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { startApp, type AppOptions, type RunningApp } from '../../src/app.ts';
import type { Config } from '../../src/config/env.ts';
import { loggerOptions } from '../../src/http/server.ts';
import type { Service } from '../../src/service/index.ts';

export { FIXTURE_MODELS } from '../api/helpers.ts';
import { fixtureConfig } from '../api/helpers.ts';

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
  const config = fixtureConfig(dataDir, { DRAGOMAN_PRECISION: 'fp32', ...env });
  const clock = new ManualClock();
  const { logLines, ...appOptions } = options;
  const logger = logLines
    ? { ...(loggerOptions(config) as object), stream: { write: (line: string) => void logLines.push(line) } }
    : false;
  const app = await startApp(config, { logger, ...appOptions, clock });
  const accounts = new Accounts(app.store, clock);
  return {
    app,
    url: app.url,
    config,
    clock,
    accounts,
    service: app.server.dragoman.service,
    async key(input = {}) {
      const { key, secret } = await accounts.createKey({ plan: 'pro', ...input });
      return { id: key.id, secret };
    },
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
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
  const res = await fetch(url, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body: payload });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
