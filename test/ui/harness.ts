// The real thing for browser tests: the app (fixture models, real detector, SQLite in a temp dir) on an
// ephemeral port with a clock the test moves, and Debian's Chromium driven by playwright-core.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Accounts, type CreateKeyInput } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { configuredAccountStore } from '../stores.ts';
import type { AppOptions, RunningApp } from '../../src/app.ts';

export { FIXTURE_MODELS } from '../api/helpers.ts';
import { fixtureConfig, startFixtureApp } from '../api/helpers.ts';
export const CHROMIUM = '/usr/bin/chromium';
export const RESULTS_DIR = resolve(import.meta.dirname, '../../test-results');

export interface UiServer {
  app: RunningApp;
  url: string;
  clock: ManualClock;
  key(input?: Partial<CreateKeyInput>): Promise<string>;
  close(): Promise<void>;
}

export async function startUiServer(
  env: Record<string, string> = {},
  options: AppOptions = {},
  /** A key made before the server starts, whose id becomes DRAGOMAN_UI_KEY (the page's shared key). */
  sharedKey?: Partial<CreateKeyInput>,
): Promise<UiServer & { sharedKeyId?: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-ui-'));
  const clock = new ManualClock(Date.now());
  let sharedKeyId: string | undefined;
  if (sharedKey) {
    const store = await configuredAccountStore(fixtureConfig(dataDir, env));
    sharedKeyId = (await new Accounts(store, clock).createKey({ plan: 'pro', ...sharedKey })).key.id;
    await store.close();
  }
  // fp32 + the models' own beam 4: the output is exactly dev.jsonl's `beam4` column.
  const config = fixtureConfig(dataDir, { DRAGOMAN_PRECISION: 'fp32', ...env, ...(sharedKeyId ? { DRAGOMAN_UI_KEY: sharedKeyId } : {}) });
  const { app, key, close } = await startFixtureApp(config, dataDir, { logger: false, ...options, clock });
  return { app, url: app.url, clock, sharedKeyId, key: async (input = {}) => (await key(input)).secret, close };
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

/** The page is loaded: its languages are in the pickers (nothing keyed has been sent). */
export async function ready(page: Page): Promise<void> {
  await page.waitForFunction(
    () => (document.getElementById('target') as HTMLInputElement | null)?.value !== '' && !(document.getElementById('translate') as HTMLButtonElement).disabled,
    undefined,
    { timeout: 30_000 },
  );
}

/** Load the page and paste `key` into the field, the way a person does (nothing else: the next action uses it). */
export async function enterKey(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url + '/');
  await ready(page);
  await page.getByLabel('Your API key').fill(key);
}

/** Choose a language in a picker the way a person does with the keyboard: type part of its name, Enter. */
export async function choose(page: Page, which: 'From' | 'To', typed: string): Promise<void> {
  const box = page.getByRole('combobox', { name: which, exact: true });
  await box.click();
  await box.fill(typed);
  await box.press('Enter');
}

/** The code of the language a picker shows, e.g. "German (de)" → "de" ("" for "Detect language"). */
export async function chosen(page: Page, which: 'From' | 'To'): Promise<string> {
  const shown = await page.getByRole('combobox', { name: which, exact: true }).inputValue();
  return /\(([^()]+)\)$/.exec(shown)?.[1] ?? '';
}
