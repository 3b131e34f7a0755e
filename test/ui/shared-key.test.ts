// DRAGOMAN_UI_KEY: the web page translates without a key, metered on the operator's key (by id), and only the
// page's own calls on this origin get that: other clients, other sites' pages and other endpoints still need a key.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { choose, FIXTURE_MODELS, launchChromium, openPage, ready, RESULTS_DIR, startUiServer, type UiServer } from './harness.ts';
import { everyTestNeeds } from '../tools.ts';

const EN = JSON.parse(readFileSync(join(FIXTURE_MODELS, 'tiny-marian-en-de', 'dev.jsonl'), 'utf8').split('\n')[0]!) as {
  src: string;
  beam4: string;
};
const POLL = { timeout: 30_000, interval: 100 };
const MARKER = { 'x-dragoman-client': 'web-page' };

let server: UiServer & { sharedKeyId?: string };
let browser: Browser;

// Without Chromium every test here is skipped, and counted in the run's summary (test/tools.ts).
const noChromium = everyTestNeeds('chromium');

beforeAll(async () => {
  if (noChromium) return;
  // 40 requests a minute per address to what needs no key (the page's /ui/* and the shared key's calls).
  server = await startUiServer({ DRAGOMAN_KEYLESS_RPM: '40' }, {}, { plan: 'basic', name: 'Intranet page' });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function used(): Promise<{ chars: number; requests: number }> {
  const accounts = new Accounts(server.app.store, server.clock);
  const key = (await server.app.store.getKey(server.sharedKeyId!))!;
  const u = await accounts.usage(key);
  return { chars: u.charactersUsed, requests: u.requests };
}

function post(path: string, headers: Record<string, string>, body: unknown = { q: EN.src, source: 'en', target: 'de' }) {
  return fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('the page with DRAGOMAN_UI_KEY', () => {
  it('translates with no key in the field, says whose quota it uses, and the usage moves on that key', async () => {
    const before = await used();
    const { context, page, requests } = await openPage(browser, server.url, { viewport: { width: 1100, height: 900 } });
    await page.goto(server.url + '/');
    await ready(page);
    const note = page.locator('#shared-key');
    await expect.poll(() => note.isVisible(), POLL).toBe(true);
    expect(await note.textContent()).toContain(`the server's shared key “Intranet page” (${server.sharedKeyId}), basic plan`);
    expect(await page.getByLabel('Your API key').inputValue()).toBe('');
    await choose(page, 'From', 'en');
    await choose(page, 'To', 'de');
    await page.getByLabel('Text', { exact: true }).fill(EN.src);
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).toBe(EN.beam4);
    const after = await used();
    expect(after.chars - before.chars).toBe([...EN.src].length);
    expect(after.requests - before.requests).toBe(1);
    // The usage panel shows the shared key's month, from the answer's headers.
    await expect.poll(() => page.locator('#usage-plan').textContent(), POLL).toBe('basic');
    // basic = 60 requests a minute: typing translates (the limit came with the settings, before any request).
    expect(await page.getByLabel('Translate as you type').isChecked()).toBe(true);
    await page.screenshot({ path: join(RESULTS_DIR, 'ui-shared-key.png'), fullPage: true });
    // Nothing carried a key; the page never asked for one.
    expect(requests.filter((u) => u.includes('dk_'))).toEqual([]);
    expect(await page.locator('#key-status').textContent()).toBe('');
    await context.close();
  });

  it('a key typed in the field is used instead of the shared one', async () => {
    const own = await server.key({ plan: 'pro' });
    const before = await used();
    const { context, page } = await openPage(browser, server.url);
    await page.goto(server.url + '/');
    await ready(page);
    await page.getByLabel('Your API key').fill(own);
    await choose(page, 'To', 'de');
    await page.getByLabel('Text', { exact: true }).fill(EN.src);
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.locator('#usage-plan').textContent(), POLL).toBe('pro');
    expect(await used()).toEqual(before);
    await context.close();
  });

  it('documents need the user\'s own key: the shared key covers text only, and nothing is sent', async () => {
    const { context, page, requests } = await openPage(browser, server.url);
    await page.goto(server.url + '/');
    await ready(page);
    await expect.poll(() => page.locator('#shared-key').isVisible(), POLL).toBe(true);
    await page.getByLabel('Choose a document').setInputFiles({ name: 'a.txt', mimeType: 'text/plain', buffer: Buffer.from('Hello.\n') });
    await page.getByRole('button', { name: 'Translate document' }).click();
    await expect.poll(() => page.locator('#files-status').textContent(), POLL).toContain('Documents need your own API key');
    expect(requests.filter((u) => u.includes('/v1/documents'))).toEqual([]);
    await context.close();
  });

  it('only the page: no marker, another origin, a cross-site fetch or another endpoint still need a key', async () => {
    const before = await used();
    // The page's call as a browser on this origin sends it.
    const ok = await post('/v1/translate', { ...MARKER, 'sec-fetch-site': 'same-origin', origin: server.url });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-dragoman-plan')).toBe('basic');
    expect(ok.headers.get('x-ratelimit-limit')).toBe('60');
    const refusedHeaders: Record<string, string>[] = [
      {},
      { 'x-dragoman-client': 'something-else' },
      { ...MARKER, 'sec-fetch-site': 'cross-site' },
      { ...MARKER, 'sec-fetch-site': 'same-site' },
      { ...MARKER, origin: 'https://evil.example' },
      { ...MARKER, origin: 'null' },
    ];
    for (const headers of refusedHeaders) {
      const res = await post('/v1/translate', headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
    }
    // A wrong key is a wrong key: the marker does not turn it into the shared one.
    expect((await post('/v1/translate', { ...MARKER, 'x-api-key': 'dk_' + 'x'.repeat(32) })).status).toBe(401);
    // The four endpoints the page uses, and no other surface.
    expect((await post('/v1/detect', MARKER, { q: 'Hello there' })).status).toBe(200);
    expect((await fetch(`${server.url}/v1/languages`, { headers: MARKER })).status).toBe(200);
    const usage = await fetch(`${server.url}/v1/usage`, { headers: MARKER });
    expect(usage.status).toBe(200);
    expect(((await usage.json()) as { data: { keyId: string } }).data.keyId).toBe(server.sharedKeyId);
    const google = await fetch(`${server.url}/language/translate/v2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...MARKER },
      body: JSON.stringify({ q: 'Hello', target: 'de' }),
    });
    expect(google.status).toBeGreaterThanOrEqual(400);
    const libre = await post('/translate', MARKER, { q: 'Hello', source: 'en', target: 'de' });
    expect(libre.status).toBeGreaterThanOrEqual(400);
    const after = await used();
    expect(after.requests - before.requests).toBe(2); // the translation and the detection
    await server.clock.advance(61_000);
  });

  it('another site open in the browser cannot spend the key: its fetch is cross-site and stopped', async () => {
    const before = await used();
    const { context, page } = await openPage(browser, server.url);
    // A page on another origin (localhost vs 127.0.0.1) that calls the server as the page would.
    const other = server.url.replace('127.0.0.1', 'localhost');
    await page.goto(`${other}/ui/icon.svg`);
    const status = await page.evaluate(async (url) => {
      try {
        const res = await fetch(`${url}/v1/translate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-dragoman-client': 'web-page' },
          body: JSON.stringify({ q: 'Hello', target: 'de' }),
        });
        return res.status;
      } catch {
        return 'blocked';
      }
    }, server.url);
    expect(status).toBe('blocked');
    expect(await used()).toEqual(before);
    await context.close();
  });

  it('per-address limits still apply to the shared key (DRAGOMAN_KEYLESS_RPM)', async () => {
    await server.clock.advance(61_000);
    const statuses: number[] = [];
    for (let i = 0; i < 42; i++) statuses.push((await fetch(`${server.url}/v1/languages`, { headers: MARKER })).status);
    expect(statuses.slice(0, 40).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(40)).toEqual([429, 429]);
    const refused = await fetch(`${server.url}/v1/languages`, { headers: MARKER });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('Too many requests from this address');
    await server.clock.advance(61_000);
  });

  it('a revoked shared key is refused in words the page shows by the key field', async () => {
    await server.clock.advance(61_000);
    await server.app.store.revokeKey(server.sharedKeyId!, server.clock.now());
    const res = await post('/v1/translate', MARKER);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('shared key for the web page (DRAGOMAN_UI_KEY) is revoked');
    const settings = (await (await fetch(`${server.url}/ui/settings`)).json()) as { data: { sharedKey: unknown } };
    expect(settings.data.sharedKey).toBeNull();
  });
});

describe('the page with DRAGOMAN_UI_KEY: its own servers', () => {
  it('a free shared key: typing does not translate (known before any request), and a spent month says so', async () => {
    const small = await startUiServer({}, {}, { plan: 'free', monthlyChars: 5 });
    try {
      const { context, page, requests } = await openPage(browser, small.url);
      await page.goto(small.url + '/');
      await ready(page);
      await expect.poll(() => page.locator('#live-hint').textContent(), POLL).toContain('this key allows 10 requests a minute');
      expect(await page.getByLabel('Translate as you type').isChecked()).toBe(false);
      expect(requests.filter((u) => u.includes('/v1/'))).toEqual([]);
      await choose(page, 'To', 'de');
      await page.getByLabel('Text', { exact: true }).fill(EN.src);
      await page.keyboard.press('Control+Enter');
      await expect.poll(() => page.getByRole('alert').textContent(), POLL).toContain('characters of the server’s shared key are used up: enter your own API key');
      await context.close();
    } finally {
      await small.close();
    }
  });

  it('without it, the page without a key asks for one and sends nothing', async () => {
    const plain = await startUiServer();
    try {
      const { context, page, requests } = await openPage(browser, plain.url);
      await page.goto(plain.url + '/');
      await ready(page);
      expect(await page.locator('#shared-key').isHidden()).toBe(true);
      await page.getByLabel('Text', { exact: true }).fill(EN.src);
      await page.keyboard.press('Control+Enter');
      await expect.poll(() => page.locator('#key-status').textContent(), POLL).toContain('Enter your API key first');
      expect(requests.filter((u) => u.includes('/v1/'))).toEqual([]);
      const direct = await fetch(`${plain.url}/v1/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...MARKER },
        body: JSON.stringify({ q: 'Hello', target: 'de' }),
      });
      expect(direct.status).toBe(401);
      await context.close();
    } finally {
      await plain.close();
    }
  });
});
