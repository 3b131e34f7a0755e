// The real thing for browser tests: the app (fixture models, real detector, SQLite in a temp dir) on an
// ephemeral port with a clock the test moves, and Debian's Chromium driven by playwright-core.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Accounts, type CreateKeyInput } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { startApp, type AppOptions, type RunningApp } from '../../src/app.ts';

export { FIXTURE_MODELS } from '../api/helpers.ts';
import { fixtureConfig } from '../api/helpers.ts';
export const CHROMIUM = '/usr/bin/chromium';
export const RESULTS_DIR = resolve(import.meta.dirname, '../../test-results');

export interface UiServer {
  app: RunningApp;
  url: string;
  clock: ManualClock;
  key(input?: Partial<CreateKeyInput>): Promise<string>;
  close(): Promise<void>;
}

export async function startUiServer(env: Record<string, string> = {}, options: AppOptions = {}): Promise<UiServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-ui-'));
  // fp32 + the models' own beam 4: the output is exactly dev.jsonl's `beam4` column.
  const config = fixtureConfig(dataDir, { DRAGOMAN_PRECISION: 'fp32', ...env });
  const clock = new ManualClock(Date.now());
  const app = await startApp(config, { logger: false, ...options, clock });
  const accounts = new Accounts(app.store, clock);
  return {
    app,
    url: app.url,
    clock,
    async key(input = {}) {
      return (await accounts.createKey({ plan: 'pro', ...input })).secret;
    },
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`;
}

/** `args`: extra command-line switches (e.g. --host-resolver-rules to reach the server under another name). */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      ...args,
    ],
  });
}

/** A fresh browser profile (empty storage) whose every request URL is recorded in `requests`. */
export async function openPage(
  browser: Browser,
  url: string,
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page; requests: string[]; consoleErrors: string[] }> {
  const context = await browser.newContext({ locale: 'en-US', ...options });
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  return { context, page, requests, consoleErrors };
}

/** Load the page and enter `key` the way a person does. */
export async function enterKey(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url + '/');
  await page.getByLabel('Your API key').fill(key);
  await page.getByRole('button', { name: 'Use key' }).click();
}
