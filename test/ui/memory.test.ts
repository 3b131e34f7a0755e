// The page's translation memory choice against a real server (fixture models, SQLite) in Chromium: the key's
// memories listed when asked, the text translated with the one chosen (its sentence as stored, the other by the
// model, the count said), and without it once "None" is chosen again; a document sent with the memory chosen.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choose, enterKey, launchChromium, openPage, RESULTS_DIR, startUiServer, type UiServer } from './harness.ts';
import { everyTestNeeds } from '../tools.ts';
import { BASIC, EXACT } from '../memories/fixtures.ts';

const FRESH = 'The dog is in the garden.';
const POLL = { timeout: 60_000, interval: 100 };

let server: UiServer;
let browser: Browser;

const noChromium = everyTestNeeds('chromium');

beforeAll(async () => {
  if (noChromium) return;
  server = await startUiServer();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the page: translation memory', () => {
  it("lists the key's memories and translates the text with the one chosen", async () => {
    const key = await server.key({ plan: 'pro' });
    const made = await fetch(`${server.url}/v1/memories?name=Handbook`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/x-tmx+xml' }, body: BASIC });
    expect(made.status).toBe(201);
    const id = ((await made.json()) as { data: { memory: { id: string } } }).data.memory.id;
    const { context, page } = await openPage(browser, server.url, { viewport: { width: 1100, height: 1000 } });
    await enterKey(page, server.url, key);
    await choose(page, 'From', 'en');
    await choose(page, 'To', 'de');
    const select = page.getByLabel('Memory', { exact: true });
    expect(await select.locator('option').allTextContents()).toEqual(['None']);
    await page.getByRole('button', { name: 'Show this key’s memories' }).click();
    await expect.poll(() => select.locator('option').allTextContents(), POLL).toEqual(['None', 'Handbook (en → de, 3 segments)']);
    await select.selectOption({ label: 'Handbook (en → de, 3 segments)' });
    expect(await select.inputValue()).toBe(id);

    await page.getByLabel('Text', { exact: true }).fill(`${EXACT.source} ${FRESH}`);
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).toMatch(new RegExp(`^${EXACT.target.replace(/\./g, '\\.')} \\S`));
    expect(await page.locator('#memory-status').textContent()).toBe('1 of 2 sentences from the memory, as stored.');
    await page.screenshot({ path: join(RESULTS_DIR, 'ui-memory.png'), fullPage: true });

    // A document sent with the memory chosen: its paragraph the memory holds comes back as stored.
    await page.getByLabel('Choose a document').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(`${EXACT.source}\n\n${FRESH}\n`) });
    await page.getByRole('button', { name: 'Translate document' }).click();
    const row = page.locator('#jobs li').first();
    await expect.poll(() => row.getAttribute('data-status'), POLL).toBe('done');
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download notes.de.txt' }).click();
    const result = readFileSync((await (await downloading).path())!, 'utf8').split('\n\n');
    expect(result[0]).toBe(EXACT.target);
    expect(result[1]!.trim()).not.toBe('');
    expect(result[1]).not.toContain(FRESH);

    // "None": the same text is the model's alone.
    await select.selectOption({ label: 'None' });
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).not.toContain(EXACT.target);
    expect(await page.locator('#memory-status').textContent()).toBe('');

    // Another key: the list is the other key's (none here), the chosen memory forgotten.
    await page.getByLabel('Your API key').fill(await server.key({ plan: 'pro' }));
    expect(await select.locator('option').allTextContents()).toEqual(['None']);
    await context.close();
  }, 120_000);
});
