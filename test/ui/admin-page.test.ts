// The admin page in Chromium: with DRAGOMAN_ADMIN_TOKEN it shows keys, per-day usage, models (loaded or not, the
// memory each takes in DRAGOMAN_MODEL_MEMORY, the requests each served), document jobs and the audit log once the token
// is given, and creates, re-plans and revokes keys (seen in the database and in the audit log as "admin"); a wrong
// token is refused and shows nothing; every request stays on the page's origin.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelFolder } from '../../src/engine/model/model-folder.ts';
import { modelCost } from '../../src/engine/translate/resident-models.ts';
import { launchChromium, openPage, startUiServer, type UiServer } from './harness.ts';
import { everyTestNeeds } from '../tools.ts';

const TOKEN = 'admin-page-token-0123456789abcdef';
const POLL = { timeout: 30_000, interval: 100 };
/** Holds one of the two fp32 OPUS-MT fixtures (about 19 MiB each by the engine's estimate), not both. */
const BUDGET = 24 * 2 ** 20;

let server: UiServer;
let browser: Browser;
const noChromium = everyTestNeeds('chromium');

beforeAll(async () => {
  if (noChromium) return;
  server = await startUiServer({ DRAGOMAN_ADMIN_TOKEN: TOKEN, DRAGOMAN_MODEL_MEMORY: String(BUDGET) });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('admin page', () => {
  it('refuses a wrong token and shows nothing', async () => {
    const { context, page, requests } = await openPage(browser, server.url);
    await page.goto(`${server.url}/admin`);
    await page.getByLabel('Admin token (DRAGOMAN_ADMIN_TOKEN)').fill('not-the-token-not-the-token');
    await page.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => page.locator('#login-error').textContent(), POLL).toBe('The token was refused.');
    expect(await page.locator('#admin').isHidden()).toBe(true);
    expect(await page.locator('#keys tbody tr').count()).toBe(0);
    expect(requests.every((u) => u.startsWith(server.url))).toBe(true);
    await context.close();
  });

  it('with the token: lists, creates, re-plans and revokes keys, shows usage per day, models and the audit log', async () => {
    const secret = await server.key({ plan: 'basic', name: 'existing' });
    const r = await fetch(`${server.url}/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': secret },
      body: JSON.stringify({ q: 'Hello world.', source: 'en', target: 'de' }),
    });
    expect(r.status).toBe(200);
    const { context, page, requests, consoleErrors } = await openPage(browser, server.url);
    await page.goto(`${server.url}/admin`);
    // The usage range is the page's today; the server's clock is the test's: ask for its day.
    const day = new Date(server.clock.now()).toISOString().slice(0, 10);
    await page.getByLabel('Admin token (DRAGOMAN_ADMIN_TOKEN)').fill(TOKEN);
    await page.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => page.locator('#keys tbody tr').count(), POLL).toBe(1);

    // Models: the budget holds one; the request above loaded en>de in place of the one loaded at start, and is its
    // one request. Memory is the engine's estimate of the loaded model, from its files.
    const { config } = server.app.server.dragoman;
    const cost = modelCost(await readModelFolder(join(config.modelsDir, 'tiny-marian-en-de'), config.precision), 1);
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
    const row = async (name: string) => page.locator(`#models tr[data-model="${name}"] td`).allTextContents();
    expect(await page.locator('#models tbody tr').count()).toBe(3);
    expect(await row('tiny-marian-en-de')).toEqual(['tiny-marian-en-de', 'ok', 'yes', mib(cost), '1']);
    expect(await row('tiny-marian-de-en')).toEqual(['tiny-marian-de-en', 'ok', 'no', '', '0']);
    expect(await row('tiny-nllb')).toEqual(['tiny-nllb', 'ok', 'no', '', '0']);
    expect(await page.locator('#models-total').textContent()).toBe(`1 of 3 loaded, ${mib(cost)} of the ${mib(BUDGET)} budget (DRAGOMAN_MODEL_MEMORY).`);

    await page.getByLabel('From', { exact: true }).fill(day);
    await page.getByLabel('To', { exact: true }).fill(day);
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.locator('#usage tbody tr').count(), POLL).toBe(1);
    expect(await page.locator('#usage tbody tr td').nth(3).textContent()).toBe(String([...'Hello world.'].length));
    expect(await page.locator('#usage-chart .bar').count()).toBe(1);

    await page.getByLabel('Name', { exact: true }).fill('made in the page');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.locator('#keys tbody tr').count(), POLL).toBe(2);
    expect(await page.locator('#new-secret').textContent()).toMatch(/dk_/);
    const keys = await server.app.store.listKeys();
    const made = keys.find((k) => k.name === 'made in the page')!;
    expect(made.plan).toBe('free');

    await page.getByLabel(`plan of ${made.id}`).selectOption('pro');
    await expect.poll(async () => (await server.app.store.getKey(made.id))!.plan, POLL).toBe('pro');
    await page.locator(`tr[data-key="${made.id}"]`).getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(async () => (await server.app.store.getKey(made.id))!.revokedAt !== null, POLL).toBe(true);
    await expect.poll(() => page.locator(`tr[data-key="${made.id}"] td`).nth(5).textContent(), POLL).toBe('revoked');

    const log = await server.app.store.listAudit(0);
    expect(log.map((e) => [e.actor, e.action, e.keyId])).toEqual([
      ['admin', 'key.create', made.id],
      ['admin', 'key.set-plan', made.id],
      ['admin', 'key.revoke', made.id],
    ]);
    await expect.poll(() => page.locator('#audit-log tbody tr').count(), POLL).toBe(3);

    expect(requests.every((u) => u.startsWith(server.url)), requests.join('\n')).toBe(true);
    expect(consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);
});
