// The page's Documents part against the real /v1/documents (fixture models, SQLite): choose or drop a file,
// translate it with the languages and key chosen above, follow its progress, download the result.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choose, enterKey, FIXTURE_MODELS, launchChromium, openPage, RESULTS_DIR, startUiServer, type UiServer } from './harness.ts';
import { everyTestNeeds } from '../tools.ts';

const EN = JSON.parse(readFileSync(join(FIXTURE_MODELS, 'tiny-marian-en-de', 'dev.jsonl'), 'utf8').split('\n')[0]!) as {
  src: string;
  beam4: string;
};
const POLL = { timeout: 60_000, interval: 200 };

let server: UiServer;
let browser: Browser;

// Without Chromium every test here is skipped, and counted in the run's summary (test/tools.ts).
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

/** What /v1/translate makes of one unit, as the document job translates it (format html). */
async function translated(key: string, text: string): Promise<string> {
  const res = await fetch(`${server.url}/v1/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ q: text, source: 'en', target: 'de', format: 'html' }),
  });
  return ((await res.json()) as { data: { translations: { translatedText: string }[] } }).data.translations[0]!.translatedText;
}

describe('the page: Documents', () => {
  it('translates a chosen file with the languages and key above, shows progress, downloads the result', async () => {
    const key = await server.key({ plan: 'pro' });
    const { context, page, requests } = await openPage(browser, server.url, { viewport: { width: 1100, height: 900 } });
    await enterKey(page, server.url, key);
    await choose(page, 'From', 'en');
    await choose(page, 'To', 'de');
    await page.getByLabel('Choose a document').setInputFiles({ name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from(`${EN.src}\n`) });
    expect(await page.locator('#file-chosen').textContent()).toBe(`note.txt (${EN.src.length + 1} bytes)`);
    await page.getByRole('button', { name: 'Translate document' }).click();
    const row = page.locator('#jobs li').first();
    await expect.poll(() => row.getAttribute('data-status'), POLL).toBe('done');
    expect(await row.textContent()).toContain('English → German');
    expect(await row.locator('progress').evaluate((p: HTMLProgressElement) => p.value)).toBe(1);
    await page.screenshot({ path: join(RESULTS_DIR, 'ui-files.png'), fullPage: true });
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download note.de.txt' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('note.de.txt');
    const bytes = readFileSync((await download.path())!, 'utf8');
    expect(bytes).toBe(`${await translated(key, EN.src)}\n`);
    expect(bytes).not.toContain(EN.src);
    // The key went in headers only; the upload was one multipart POST.
    expect(requests.filter((u) => u.includes(key))).toEqual([]);
    expect(requests.filter((u) => u.endsWith('/v1/documents'))).toHaveLength(1);
    await context.close();
  });

  it('takes a dropped file; a wrong key is said by the key field, and the right one sends it', async () => {
    const { context, page } = await openPage(browser, server.url);
    await enterKey(page, server.url, 'dk_' + 'w'.repeat(32));
    await page.evaluate((text) => {
      const data = new DataTransfer();
      data.items.add(new File([text], 'dropped.md', { type: 'text/markdown' }));
      document.getElementById('drop')!.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, `# ${EN.src}\n`);
    expect(await page.locator('#file-chosen').textContent()).toContain('dropped.md');
    await page.getByRole('button', { name: 'Translate document' }).click();
    await expect.poll(() => page.locator('#key-status').textContent(), POLL).toContain('Key not accepted');
    expect(await page.locator('#files-status').textContent()).toBe('The key was not accepted (see the key field).');
    // With a good key the same dropped file goes through.
    await page.getByLabel('Your API key').fill(await server.key({ plan: 'pro' }));
    await page.getByRole('button', { name: 'Translate document' }).click();
    await expect.poll(() => page.locator('#jobs li').first().getAttribute('data-status'), POLL).toBe('done');
    await context.close();
  });
});
