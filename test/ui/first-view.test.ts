// The page's first view and document history, in Debian's Chromium against the real app: the target is a
// language the installed models reach (on an en→de server, German, never the source; with detection, text in the
// language the page targeted goes into the next reachable one); a translation that comes
// back as the text, in the same language, is said so; "Get a free key" asks before replacing a key; after a
// reload the key's documents are listed with their real result name and a delete button, and the usage panel
// reads the month again when a job ends.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choose, chosen, enterKey, FIXTURE_MODELS, launchChromium, openPage, ready, startUiServer, type UiServer } from './harness.ts';

const EN = JSON.parse(readFileSync(join(FIXTURE_MODELS, 'tiny-marian-en-de', 'dev.jsonl'), 'utf8').split('\n')[0]!) as {
  src: string;
  beam4: string;
};
const POLL = { timeout: 60_000, interval: 200 };

let server: UiServer;
let enDe: UiServer;
let enDeBoth: UiServer;
let models: string;
let browser: Browser;

beforeAll(async () => {
  // A server with one model, English → German, as a newcomer installs it.
  // And one with English → German and German → English.
  models = mkdtempSync(join(tmpdir(), 'dragoman-ui-en-de-'));
  for (const [folder, names] of [['one', ['tiny-marian-en-de']], ['both', ['tiny-marian-en-de', 'tiny-marian-de-en']]] as const) {
    for (const name of names) {
      mkdirSync(join(models, folder, name), { recursive: true });
      for (const f of readdirSync(join(FIXTURE_MODELS, name))) symlinkSync(join(FIXTURE_MODELS, name, f), join(models, folder, name, f));
    }
  }
  [server, enDe, enDeBoth] = await Promise.all([
    startUiServer(),
    startUiServer({ DRAGOMAN_MODELS_DIR: join(models, 'one') }),
    startUiServer({ DRAGOMAN_MODELS_DIR: join(models, 'both') }),
  ]);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([server?.close(), enDe?.close(), enDeBoth?.close()]);
  if (models) rmSync(models, { recursive: true, force: true });
});

describe('the first view', () => {
  it('on an en→de server an English browser targets German, lists only German, and translates', async () => {
    const { context, page, consoleErrors } = await openPage(browser, enDe.url, { locale: 'en-US' });
    await enterKey(page, enDe.url, await enDe.key());
    expect(await chosen(page, 'To')).toBe('de');
    expect(await chosen(page, 'From')).toBe('');
    await page.getByRole('combobox', { name: 'To', exact: true }).click();
    expect(await page.locator('#target-list [role="option"]').allTextContents()).toEqual(['German (de)']);
    await page.keyboard.press('Escape');
    await page.getByLabel('Text', { exact: true }).fill(EN.src);
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).toBe(EN.beam4);
    expect(await page.locator('#result-note').isHidden()).toBe(true);
    // Swapping asks for de→en, which this server cannot do: said, and nothing changes.
    await choose(page, 'From', 'en');
    await page.getByRole('button', { name: 'Swap languages' }).click();
    expect(await page.locator('#progress-text').textContent()).toBe('The installed models do not translate from German into English.');
    expect([await chosen(page, 'From'), await chosen(page, 'To')]).toEqual(['en', 'de']);
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('choosing as source the language targeted moves the target to one the models reach from it', async () => {
    const { context, page } = await openPage(browser, server.url, { locale: 'en-US' });
    await enterKey(page, server.url, await server.key());
    // Detection on the source side: the browser's language, which the models write, is the target.
    expect(await chosen(page, 'To')).toBe('en');
    await choose(page, 'From', 'en');
    const target = await chosen(page, 'To');
    expect(target).not.toBe('en');
    expect(target).not.toBe('');
    // The browser's language comes back when the source no longer excludes it.
    await choose(page, 'From', 'de');
    expect(await chosen(page, 'To')).toBe('en');
    await context.close();
  });

  it('with detection, text in the language the page targeted is translated into the next one the models reach', async () => {
    const { context, page, requests } = await openPage(browser, enDeBoth.url, { locale: 'en-US' });
    await enterKey(page, enDeBoth.url, await enDeBoth.key());
    // English and German both ways: the English browser's language is the first target.
    expect(await chosen(page, 'To')).toBe('en');
    await page.getByLabel('Text', { exact: true }).fill(EN.src);
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).toBe(EN.beam4);
    expect(await chosen(page, 'To')).toBe('de');
    expect(await page.locator('#detected').textContent()).toMatch(/^Detected: English \(\d+\s?%\)$/);
    expect(await page.locator('#result-note').isHidden()).toBe(true);
    expect(requests.filter((u) => u.endsWith('/v1/translate'))).toHaveLength(2);
    await context.close();
  });

  it('a result that is the text itself, in the same language, gets a visible note', async () => {
    const { context, page } = await openPage(browser, server.url, { locale: 'en-US' });
    await enterKey(page, server.url, await server.key());
    // Chosen by hand: the page keeps it.
    await choose(page, 'To', 'en');
    expect(await chosen(page, 'To')).toBe('en');
    const text = 'The weather is very nice today and we are going to the beach.';
    await page.getByLabel('Text', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).toBe(text);
    const note = page.locator('#result-note');
    await expect.poll(() => note.isVisible(), POLL).toBe(true);
    expect(await note.textContent()).toBe('The text is already in English (detected), so the translation is the text itself: choose another language under “To”.');
    // Into German it is a translation again, and the note goes.
    await choose(page, 'To', 'de');
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).not.toBe(text);
    expect(await note.isHidden()).toBe(true);
    await context.close();
  });

  it('"Get a free key" asks before it replaces a key in the field', async () => {
    const { context, page, requests } = await openPage(browser, server.url);
    const mine = await server.key();
    await enterKey(page, server.url, mine);
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'Get a free key' }).click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toMatch(/^Replace the API key in the field with a new free key\?/);
    expect(await page.getByLabel('Your API key').inputValue()).toBe(mine);
    expect(requests.filter((u) => u.endsWith('/v1/signup'))).toEqual([]);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Get a free key' }).click();
    await expect.poll(() => page.getByLabel('Your API key').inputValue(), POLL).toMatch(/^dk_/);
    expect(await page.getByLabel('Your API key').inputValue()).not.toBe(mine);
    expect(requests.filter((u) => u.endsWith('/v1/signup'))).toHaveLength(1);
    // An empty field is filled without a question.
    await page.getByRole('button', { name: 'Forget key' }).click();
    let questions = 0;
    page.on('dialog', (d) => {
      questions++;
      void d.dismiss();
    });
    await page.getByRole('button', { name: 'Get a free key' }).click();
    await expect.poll(() => page.getByLabel('Your API key').inputValue(), POLL).toMatch(/^dk_/);
    expect(questions).toBe(0);
    await context.close();
  });
});

describe('document history on the page', () => {
  it('after a reload lists the key’s documents with the result’s name; delete removes one; usage follows the job', async () => {
    const key = await server.key({ plan: 'pro' });
    const { context, page } = await openPage(browser, server.url, { viewport: { width: 1100, height: 900 } });
    await enterKey(page, server.url, key);
    await choose(page, 'From', 'en');
    await choose(page, 'To', 'de');
    for (const [i, name] of ['report.txt', 'minutes.md'].entries()) {
      await page.getByLabel('Choose a document').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(`${EN.src}\n`) });
      await page.getByRole('button', { name: 'Translate document' }).click();
      // Every job sent so far is done (the first one's row is done already while the second is still on its way).
      await expect.poll(() => page.locator('#jobs li[data-status="done"]').count(), POLL).toBe(i + 1);
      // The server's clock is the test's: one job a second later than the other, as two uploads are.
      server.clock.advance(1000);
    }
    // The job's end refreshed the usage panel: both documents' characters, as GET /v1/usage says.
    const listed0 = (await (await fetch(`${server.url}/v1/documents`, { headers: { 'x-api-key': key } })).json()) as { data: { documents: { characters: number }[] } };
    const charged = listed0.data.documents.reduce((n, d) => n + d.characters, 0);
    expect(charged).toBeGreaterThan(0);
    const used = (await (await fetch(`${server.url}/v1/usage`, { headers: { 'x-api-key': key } })).json()) as { data: { charactersUsed: number } };
    expect(used.data.charactersUsed).toBe(charged);
    await expect.poll(() => page.locator('#usage-chars').textContent(), POLL).toMatch(new RegExp(`^${charged} `));

    await page.reload();
    await ready(page);
    const rows = page.locator('#jobs li');
    await expect.poll(() => rows.count(), POLL).toBe(2);
    // Newest first, each with the name its download carries.
    expect(await rows.nth(0).locator('.job-name').textContent()).toBe('minutes.md');
    expect(await rows.nth(1).locator('.job-name').textContent()).toBe('report.txt');
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download report.de.txt' }).click();
    expect((await downloading).suggestedFilename()).toBe('report.de.txt');

    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Delete report.txt' }).click();
    await expect.poll(() => rows.count(), POLL).toBe(1);
    const listed = (await (await fetch(`${server.url}/v1/documents`, { headers: { 'x-api-key': key } })).json()) as { data: { documents: { filename: string }[] } };
    expect(listed.data.documents.map((d) => d.filename)).toEqual(['minutes.md']);
    await context.close();
  });
});
