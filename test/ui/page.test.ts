// The web page at `/`, driven in Debian's Chromium (playwright-core) against the real app with the fixture
// models: what a person sees and can do, error words, keyboard use, themes, and that the page never talks to
// anything but its own origin.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/http/ui/index.ts';
import { choose, chosen, enterKey, FIXTURE_MODELS, launchChromium, openPage, ready, RESULTS_DIR, startUiServer, type UiServer } from './harness.ts';
import { everyTestNeeds } from '../tools.ts';

interface DevRow {
  src: string;
  beam4: string;
}
const dev = readFileSync(join(FIXTURE_MODELS, 'tiny-marian-en-de', 'dev.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as DevRow);
const EN = dev[0]!;
const DE = JSON.parse(readFileSync(join(FIXTURE_MODELS, 'tiny-marian-de-en', 'dev.jsonl'), 'utf8').split('\n')[0]!) as {
  src: string;
};

/** The page waits on real inference: give it room on a busy 2-core CI machine (vitest's default is 1 s). */
const POLL = { timeout: 30_000, interval: 100 };

let server: UiServer;
let browser: Browser;
/** Set by a test: the next engine call throws, as a crashed model would (500 path). */
let failNextTranslation = false;

// Without Chromium every test here is skipped, and counted in the run's summary (test/tools.ts).
const noChromium = everyTestNeeds('chromium');

beforeAll(async () => {
  if (noChromium) return;
  mkdirSync(RESULTS_DIR, { recursive: true });
  server = await startUiServer(
    {},
    {
      wrapEngine: (engine: Engine): Engine =>
        Object.assign(Object.create(engine) as Engine, {
          translate: (...args: Parameters<Engine['translate']>) => {
            if (failNextTranslation) {
              failNextTranslation = false;
              return Promise.reject(new Error('simulated engine failure'));
            }
            return engine.translate(...args);
          },
        }),
    },
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Choose by typing the code into the picker and pressing Enter (the exact code ranks first). */
async function pick(page: Page, which: 'From' | 'To', code: string): Promise<void> {
  await choose(page, which, code);
  expect(await chosen(page, which)).toBe(code);
}

/** The options the picker's list shows now (open it first). */
function listed(page: Page, which: 'source' | 'target'): Promise<string[]> {
  return page.locator(`#${which}-list [role="option"]`).allTextContents();
}

async function translateViaButton(page: Page, text: string): Promise<string> {
  await page.getByLabel('Text', { exact: true }).fill(text);
  await page.getByRole('button', { name: 'Translate', exact: true }).click();
  await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).not.toBe('');
  return page.getByLabel('Translation').inputValue();
}


describe('the page at /', () => {
  it('is served with a strict Content-Security-Policy and nothing inline', async () => {
    const res = await fetch(`${server.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await res.text();
    // Every script has a same-origin src; no inline script, style element or style attribute.
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="/ui/app.js">']);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    expect(html).not.toMatch(/https?:\/\//);
    for (const asset of ['/ui/app.js', '/ui/style.css', '/ui/icon.svg']) {
      const a = await fetch(server.url + asset);
      expect(a.status, asset).toBe(200);
      expect(a.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      const again = await fetch(server.url + asset, { headers: { 'if-none-match': a.headers.get('etag')! } });
      expect(again.status, asset).toBe(304);
    }
  });

  it('translates en→de and shows the model output (screenshots in light and dark)', async () => {
    const key = await server.key();
    for (const scheme of ['light', 'dark'] as const) {
      const { context, page, consoleErrors } = await openPage(browser, server.url, {
        colorScheme: scheme,
        viewport: { width: 1100, height: 900 },
      });
      await enterKey(page, server.url, key);
      await ready(page);
      await pick(page, 'From', 'en');
      await pick(page, 'To', 'de');
      expect(await translateViaButton(page, EN.src)).toBe(EN.beam4);
      expect(await page.getByLabel('Translation').inputValue()).toBe(EN.beam4);
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
      await page.screenshot({ path: join(RESULTS_DIR, `ui-${scheme}.png`), fullPage: true });
      expect(consoleErrors).toEqual([]);
      await context.close();
    }
  });

  it('auto-detect shows the detected language (en) and a confidence after translating', async () => {
    const key = await server.key();
    const { context, page } = await openPage(browser, server.url);
    await enterKey(page, server.url, key);
    await ready(page);
    expect(await page.getByRole('combobox', { name: 'From', exact: true }).inputValue()).toBe('Detect language');
    await pick(page, 'To', 'de');
    expect(await translateViaButton(page, EN.src)).toBe(EN.beam4);
    const detected = page.locator('#detected');
    await expect.poll(() => detected.textContent(), POLL).toMatch(/^Detected: English \(\d+\s?%\)$/);
    // The source side still shows what is chosen (detection), and what was found is named below it.
    expect(await page.getByRole('combobox', { name: 'From', exact: true }).inputValue()).toBe('Detect language');
    await context.close();
  });

  it('names the languages in the browser language and the search narrows the list', async () => {
    const key = await server.key();
    const { context, page } = await openPage(browser, server.url, { locale: 'de-DE' });
    await enterKey(page, server.url, key);
    await ready(page);
    const box = page.getByRole('combobox', { name: 'To', exact: true });
    await box.click();
    const all = await listed(page, 'target');
    expect(all).toContain('Englisch (en)');
    expect(all).toContain('Deutsch (de)');
    await box.fill('engl');
    expect(await listed(page, 'target')).toEqual(['Englisch (en)']);
    await box.fill('');
    expect(await listed(page, 'target')).toEqual(all);
    await box.fill('engl');
    await box.press('Enter');
    expect(await box.inputValue()).toBe('Englisch (en)');
    await context.close();
  });

  it('a regional browser language gets its own names and target: zh-TW and zh-HK Traditional, not zh', async () => {
    const key = await server.key();
    for (const [locale, german] of [['zh-TW', '德文 (de)'], ['zh-HK', '德文 (de)'], ['zh-CN', '德语 (de)']] as const) {
      const { context, page } = await openPage(browser, server.url, { locale });
      await enterKey(page, server.url, key);
      await ready(page);
      expect(await chosen(page, 'To'), locale).toBe(locale === 'zh-CN' ? 'zh-CN' : 'zh-TW');
      await page.getByRole('combobox', { name: 'To', exact: true }).click();
      expect(await listed(page, 'target'), locale).toContain(german);
      await context.close();
    }
  });

  it('a browser set to fa-AF gets Dari (prs) as its target, as the API reads fa-AF, not Persian (fa)', async () => {
    // A models folder where copies of the tiny Marian model are declared en→fa and en→prs (output meaningless).
    const models = mkdtempSync(join(tmpdir(), 'dragoman-ui-models-'));
    for (const [folder, target] of [['en-fa', 'fa'], ['en-prs', 'prs']] as const) {
      mkdirSync(join(models, folder));
      for (const f of readdirSync(join(FIXTURE_MODELS, 'tiny-marian-en-de')))
        symlinkSync(join(FIXTURE_MODELS, 'tiny-marian-en-de', f), join(models, folder, f));
      writeFileSync(join(models, folder, 'dragoman.json'), JSON.stringify({ family: 'marian', source: 'en', target }));
    }
    const dari = await startUiServer({ DRAGOMAN_MODELS_DIR: models });
    try {
      for (const [locale, expected] of [['fa-AF', 'prs'], ['fa-IR', 'fa']] as const) {
        const { context, page } = await openPage(browser, dari.url, { locale });
        await enterKey(page, dari.url, await dari.key());
        await ready(page);
        expect(await chosen(page, 'To'), locale).toBe(expected);
        await context.close();
      }
    } finally {
      await dari.close();
      rmSync(models, { recursive: true, force: true });
    }
  });

  it('a pasted key with quotes or an invisible character is refused in words by the field, not stored, nothing sent', async () => {
    const key = await server.key();
    const { context, page, requests } = await openPage(browser, server.url);
    await page.goto(server.url + '/');
    await ready(page);
    await page.getByLabel('Text', { exact: true }).fill(EN.src);
    for (const pasted of [`${key}\u200b`, `“${key}”`]) {
      await page.getByLabel('Your API key').fill(pasted);
      await page.getByRole('button', { name: 'Translate', exact: true }).click();
      await expect.poll(() => page.locator('#key-status').textContent(), POLL).toContain('This key has characters an API key never has');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('key');
      expect(await page.evaluate(() => [sessionStorage.getItem('dragoman.apiKey'), localStorage.getItem('dragoman.apiKey')])).toEqual([null, null]);
    }
    expect(requests.filter((u) => u.includes('/v1/'))).toEqual([]);
    await context.close();
  });

  it('every control has a name and the page has no positive tabindex (keyboard order = reading order)', async () => {
    const { context, page } = await openPage(browser, server.url);
    await page.goto(server.url + '/');
    const unnamed = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('input, select, textarea, button'))
        .filter((el) => {
          const labelled = 'labels' in el && (el as HTMLInputElement).labels?.length;
          const named = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
          const text = el.tagName === 'BUTTON' && el.textContent?.trim();
          return !labelled && !named && !text;
        })
        .map((el) => el.id || el.outerHTML.slice(0, 60)),
    );
    expect(unnamed).toEqual([]);
    expect(await page.locator('[tabindex]:not([tabindex="0"]):not([tabindex="-1"])').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    // The first Tab reaches the skip link, which jumps to the text box.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the text to translate');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('text');
    await context.close();
  });

  it('a wrong key is said by the key field, in the server\'s words, and the focus goes there', async () => {
    const { context, page } = await openPage(browser, server.url);
    await enterKey(page, server.url, 'dk_thisisnotakeythisisnotakey0000000000');
    await pick(page, 'From', 'en');
    await pick(page, 'To', 'de');
    await page.getByLabel('Text', { exact: true }).fill(EN.src);
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    const status = page.locator('#key-status');
    await expect.poll(() => status.textContent(), POLL).toBe('Key not accepted: Invalid API key (malformed or mistyped).');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key');
    expect(await page.getByLabel('Your API key').getAttribute('aria-invalid')).toBe('true');
    // The field describes itself with the status, so a screen reader reads the reason with the field.
    expect(await page.getByLabel('Your API key').getAttribute('aria-describedby')).toContain('key-status');
    expect(await page.getByRole('alert').isVisible()).toBe(false);
    expect(await page.getByLabel('Translation').inputValue()).toBe('');
    // Fixing the key in the field is all it takes: the next click uses it.
    await page.getByLabel('Your API key').fill(await server.key());
    expect(await status.textContent()).toBe('');
    expect(await translateViaButton(page, EN.src)).toBe(EN.beam4);
    expect(await status.textContent()).toBe('Key accepted.');
    expect(await page.getByLabel('Your API key').getAttribute('aria-invalid')).toBe(null);
    await context.close();
  });

  it('a key with 1 request per minute shows a countdown on the second click, then the button works again', async () => {
    const key = await server.key({ rpm: 1 });
    const { context, page } = await openPage(browser, server.url);
    await page.clock.install();
    await enterKey(page, server.url, key);
    await ready(page);
    // Entering the key and loading the pickers spend none of the key's requests: the first click translates.
    await pick(page, 'From', 'en');
    await pick(page, 'To', 'de');
    expect(await translateViaButton(page, EN.src)).toBe(EN.beam4);
    // The panel is filled from the answer: no request of its own.
    await expect.poll(() => page.locator('#usage-note').textContent(), POLL).toBe('0 of 1 requests left in this minute.');
    const button = page.getByRole('button', { name: 'Translate', exact: true });
    await button.click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent(), POLL).toMatch(/Too many requests.*try again in (\d+) s/);
    const first = Number(/in (\d+) s/.exec((await alert.textContent())!)![1]);
    expect(first).toBeGreaterThan(50);
    expect(first).toBeLessThanOrEqual(60);
    expect(await button.isDisabled()).toBe(true);
    await page.clock.runFor(3_000);
    const later = Number(/in (\d+) s/.exec((await alert.textContent())!)![1]);
    expect(later).toBe(first - 3);
    // The minute passes for both sides: the message says so and the button works again.
    server.clock.advance(61_000);
    await page.clock.runFor((first - 3) * 1000 + 1000);
    await expect.poll(() => alert.textContent(), POLL).toContain('You can try again now.');
    expect(await button.isDisabled()).toBe(false);
    await page.getByLabel('Translation').evaluate((t: HTMLTextAreaElement) => (t.value = ''));
    expect(await translateViaButton(page, EN.src)).toBe(EN.beam4);
    await context.close();
  });

  it('the usage bar moves after a translation, to what the server counted, without a request of its own', async () => {
    const key = await server.key({ plan: 'free' });
    const { context, page, requests } = await openPage(browser, server.url);
    await enterKey(page, server.url, key);
    await ready(page);
    // Entering the key spends none of its requests: usage comes with the first translation's answer.
    expect(await page.locator('#usage-details').isHidden()).toBe(true);
    expect(await page.locator('#usage-empty').textContent()).toContain('Usage appears with your first translation');
    const bar = page.locator('#usage-bar');
    await pick(page, 'From', 'en');
    await pick(page, 'To', 'de');
    await translateViaButton(page, EN.src);
    const n = [...EN.src].length;
    await expect.poll(() => page.locator('#usage-plan').textContent(), POLL).toBe('free');
    expect(await page.locator('#usage-rpm').textContent()).toBe('10 requests per minute');
    expect(await page.getByText('Key accepted.').count()).toBe(1);
    expect(await bar.evaluate((b: HTMLProgressElement) => [b.value, b.max])).toEqual([n, 500_000]);
    expect(await page.locator('#usage-note').textContent()).toBe('9 of 10 requests left in this minute.');
    // Characters another client of the same key spent show with the next answer: the server's count, not the page's.
    await fetch(`${server.url}/v1/detect`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ q: 'abc' }) });
    await page.getByLabel('Translation').evaluate((t: HTMLTextAreaElement) => (t.value = ''));
    await translateViaButton(page, EN.src);
    await expect.poll(() => bar.evaluate((b: HTMLProgressElement) => b.value), POLL).toBe(2 * n + 3);
    expect(requests.filter((u) => u.includes('/v1/usage'))).toEqual([]);
    // "Refresh usage" reads GET /v1/usage, which agrees.
    await page.getByRole('button', { name: 'Refresh usage' }).click();
    await expect.poll(() => requests.filter((u) => u.includes('/v1/usage')).length, POLL).toBe(1);
    await expect.poll(() => page.locator('#usage-chars').textContent(), POLL).toContain(`${2 * n + 3} of 500,000 characters used`);
    await context.close();
  });

  it('works with the keyboard only: key, languages, text, Ctrl+Enter and the Translate button', async () => {
    const key = await server.key();
    const { context, page } = await openPage(browser, server.url);
    await page.goto(server.url + '/');
    const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
    const tabTo = async (id: string): Promise<void> => {
      for (let i = 0; i < 40 && (await focused()) !== id; i++) await page.keyboard.press('Tab');
      expect(await focused()).toBe(id);
    };
    await ready(page);
    await tabTo('key');
    await page.keyboard.type(key);
    // Focus order follows the page: key → … → source → swap → target → format → memory → text (one stop per picker).
    const order: string[] = [];
    await tabTo('source');
    for (let i = 0; i < 6; i++) {
      order.push(await focused());
      await page.keyboard.press('Tab');
    }
    expect(order).toEqual(['source', 'swap', 'target', 'format-text', 'memory', 'memories-refresh']);
    expect(await focused()).toBe('text');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('target');
    await page.keyboard.type('germ');
    await page.keyboard.press('Enter');
    expect(await chosen(page, 'To')).toBe('de');
    await tabTo('text');
    await page.keyboard.type(EN.src);
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).toBe(EN.beam4);
    await page.getByLabel('Translation').evaluate((t: HTMLTextAreaElement) => (t.value = ''));
    await tabTo('translate');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).toBe(EN.beam4);
    // The button was disabled while it worked; the focus comes back to it, not to <body>.
    await expect.poll(() => focused(), POLL).toBe('translate');
    await context.close();
  });

  it('detect lists a detection per line', async () => {
    const key = await server.key();
    const { context, page } = await openPage(browser, server.url);
    await enterKey(page, server.url, key);
    await ready(page);
    await page.getByLabel('Text', { exact: true }).fill(`${EN.src}\n\n${DE.src}\n`);
    await page.getByRole('button', { name: 'Detect languages per line' }).click();
    const rows = page.locator('#detections-body tr');
    await expect.poll(() => rows.count(), POLL).toBe(2);
    const cells = await rows.evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (td) => td.textContent)));
    expect(cells[0]![0]).toBe(EN.src);
    expect(cells[0]![1]).toMatch(/\(en\)$/);
    expect(cells[1]![0]).toBe(DE.src);
    expect(cells[1]![1]).toMatch(/\(de\)$/);
    for (const row of cells) expect(row[2]).toMatch(/^\d+\s?%$/);
    await context.close();
  });

  it('errors in words: quota → upgrade, 400 → the API message, 500 → try again', async () => {
    const key = await server.key({ monthlyChars: 20 });
    const { context, page } = await openPage(browser, server.url);
    await enterKey(page, server.url, key);
    await ready(page);
    await pick(page, 'From', 'en');
    await pick(page, 'To', 'de');
    const alert = page.getByRole('alert');
    await page.getByLabel('Text', { exact: true }).fill(EN.src);
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => alert.textContent(), POLL).toContain('monthly characters of your plan are used up. Upgrade the plan');

    await page.getByLabel('Text', { exact: true }).fill('x'.repeat(100_001));
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    // The API's own message (it names the limit), not a generic one.
    await expect.poll(() => alert.textContent(), POLL).toMatch(/100000|100,000/);

    await page.getByLabel('Text', { exact: true }).fill('Hi.');
    failNextTranslation = true;
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => alert.textContent(), POLL).toContain('The server had a problem with this request');
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).not.toBe('');
    expect(await alert.isVisible()).toBe(false);

    // The network drops the request: say so, keep the text, and "Try again" works once it is back.
    await page.getByLabel('Translation').evaluate((t: HTMLTextAreaElement) => (t.value = ''));
    await page.route('**/v1/translate', (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => alert.textContent(), POLL).toContain('The server could not be reached');
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).toBe('Hi.');
    await page.unroute('**/v1/translate');
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).not.toBe('');
    expect(await alert.isVisible()).toBe(false);
    await context.close();
  });

  it('keeps the key in sessionStorage, in localStorage only with "remember", never in a URL', async () => {
    const key = await server.key();
    const { context, page, requests } = await openPage(browser, server.url);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await enterKey(page, server.url, key);
    await ready(page);
    const stored = () =>
      page.evaluate(() => [sessionStorage.getItem('dragoman.apiKey'), localStorage.getItem('dragoman.apiKey')]);
    expect(await stored()).toEqual([key, null]);
    await page.getByLabel('Remember the key on this device').check();
    expect(await stored()).toEqual([null, key]);
    // A full session: translate with detection, swap, detect lines, copy, theme toggle.
    await pick(page, 'To', 'de');
    await translateViaButton(page, EN.src);
    await expect.poll(() => page.locator('#detected').textContent(), POLL).toMatch(/^Detected: English/);
    await page.getByRole('button', { name: 'Copy translation' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(EN.beam4);
    await page.getByRole('button', { name: 'Swap languages' }).click();
    // Both sides stay valid: the detected source becomes the target.
    expect(await chosen(page, 'From')).toBe('de');
    expect(await chosen(page, 'To')).toBe('en');
    expect(await page.getByLabel('Text', { exact: true }).inputValue()).toBe(EN.beam4);
    expect(await page.locator('#char-count').textContent()).toBe(`${[...EN.beam4].length} characters`);
    await page.getByRole('button', { name: 'Detect languages per line' }).click();
    await expect.poll(() => page.locator('#detections-body tr').count(), POLL).toBe(1);
    const toggle = page.getByRole('button', { name: 'Dark theme' });
    const before = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).not.toBe(before);
    await page.getByRole('button', { name: 'Forget key' }).click();
    expect(await stored()).toEqual([null, null]);

    const origin = new URL(server.url).origin;
    expect(requests.length).toBeGreaterThan(6);
    expect(requests.filter((u) => new URL(u).origin !== origin)).toEqual([]);
    expect(requests.filter((u) => u.includes(key) || u.includes('key='))).toEqual([]);
    await context.close();
  });

  it('gets a free key with one click, and translates HTML keeping the markup', async () => {
    const { context, page } = await openPage(browser, server.url);
    await page.goto(server.url + '/');
    await ready(page);
    await page.getByRole('button', { name: 'Get a free key' }).click();
    // The one-time warning stays in view (not replaced by "Key accepted.").
    await page.getByText('Store it now: it is shown only once.').waitFor();
    const key = await page.getByLabel('Your API key').inputValue();
    expect(key).toMatch(/^dk_/);
    expect(await page.evaluate(() => sessionStorage.getItem('dragoman.apiKey'))).toBe(key);
    await pick(page, 'From', 'en');
    await pick(page, 'To', 'de');
    await page.getByLabel('HTML').check();
    const html = `<p>${EN.src}</p>`;
    const out = await translateViaButton(page, html);
    expect(out).toBe(`<p>${EN.beam4}</p>`);
    await expect.poll(() => page.locator('#usage-plan').textContent(), POLL).toBe('free');
    expect(await page.getByText('Store it now: it is shown only once.').count()).toBe(1);
    await context.close();
  });

  it('paste the key, choose en → de, type, Ctrl+Enter: the model output appears with no other click, one request', async () => {
    const key = await server.key();
    const { context, page, requests } = await openPage(browser, server.url);
    await page.goto(server.url + '/');
    await ready(page);
    // Pasted, as from a password manager or an e-mail: nothing is clicked afterwards.
    await page.getByLabel('Your API key').focus();
    await page.evaluate((k) => {
      const field = document.getElementById('key') as HTMLInputElement;
      const data = new DataTransfer();
      data.setData('text/plain', k);
      field.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, key);
    await page.keyboard.insertText(key);
    expect(await page.getByLabel('Your API key').inputValue()).toBe(key);
    // Enter in the field sends nothing: it only says the key can be used.
    await page.keyboard.press('Enter');
    expect(await page.locator('#key-status').textContent()).toBe('Key ready: it is checked by your first translation.');
    await choose(page, 'From', 'engl');
    await choose(page, 'To', 'germ');
    expect(await page.getByRole('combobox', { name: 'From', exact: true }).inputValue()).toBe('English (en)');
    expect(await page.getByRole('combobox', { name: 'To', exact: true }).inputValue()).toBe('German (de)');
    await page.getByLabel('Text', { exact: true }).click();
    await page.keyboard.type(EN.src);
    const before = requests.filter((u) => u.includes('/v1/')).length;
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).toBe(EN.beam4);
    // Exactly one keyed request for the whole flow: the translation (no key check, no usage read).
    expect(before).toBe(0);
    expect(requests.filter((u) => u.includes('/v1/'))).toEqual([`${server.url}/v1/translate`]);
    expect(await page.locator('#key-status').textContent()).toBe('Key accepted.');
    await context.close();
  });

  it('the pickers work by keyboard alone: arrows, Enter, Escape, with the ARIA combobox states', async () => {
    const { context, page } = await openPage(browser, server.url);
    await page.goto(server.url + '/');
    await ready(page);
    const box = page.getByRole('combobox', { name: 'To', exact: true });
    // Swap with detection on and nothing detected yet: no language to put on the target side, so nothing moves.
    await page.getByRole('button', { name: 'Swap languages' }).click();
    expect(await page.locator('#progress-text').textContent()).toContain('Choose a source language (or translate once with detection) before swapping');
    expect(await page.getByRole('combobox', { name: 'From', exact: true }).inputValue()).toBe('Detect language');
    expect(await box.inputValue()).toBe('English (en)');
    expect(await box.getAttribute('aria-controls')).toBe('target-list');
    expect(await box.getAttribute('aria-autocomplete')).toBe('list');
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    expect(await page.getByRole('listbox', { includeHidden: true }).count()).toBe(2);
    await box.focus();
    const start = await box.inputValue();
    // Down opens the list on the chosen language; each Down moves the highlight, announced by aria-activedescendant.
    await page.keyboard.press('ArrowDown');
    expect(await box.getAttribute('aria-expanded')).toBe('true');
    const active = () => page.evaluate(() => {
      const id = document.getElementById('target')!.getAttribute('aria-activedescendant');
      return id ? document.getElementById(id)!.textContent : null;
    });
    expect(await active()).toBe(start);
    expect(await page.locator('#target-list [aria-selected="true"]').textContent()).toBe(start);
    await page.keyboard.press('ArrowDown');
    const next = await active();
    expect(next).not.toBe(start);
    await page.keyboard.press('ArrowUp');
    expect(await active()).toBe(start);
    await page.keyboard.press('ArrowDown');
    // Escape closes the list and keeps the chosen language.
    await page.keyboard.press('Escape');
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    expect(await box.inputValue()).toBe(start);
    // Enter takes the highlighted one.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    expect(await box.inputValue()).toBe(next);
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    // The source side offers detection first, by keyboard too.
    const source = page.getByRole('combobox', { name: 'From', exact: true });
    await source.focus();
    await page.keyboard.type('engl');
    await page.keyboard.press('Enter');
    expect(await source.inputValue()).toBe('English (en)');
    await page.keyboard.type('detect');
    await page.keyboard.press('Enter');
    expect(await source.inputValue()).toBe('Detect language');
    await context.close();
  });

  it('the chosen target stays visible after filtering: the field shows it once the list closes', async () => {
    const { context, page } = await openPage(browser, server.url);
    await page.goto(server.url + '/');
    await ready(page);
    const box = page.getByRole('combobox', { name: 'To', exact: true });
    await box.focus();
    await page.keyboard.type('g');
    await page.screenshot({ path: join(RESULTS_DIR, 'ui-picker-open.png') });
    await page.keyboard.type('erm');
    expect(await listed(page, 'target')).toEqual(['German (de)']);
    await page.keyboard.press('Enter');
    expect(await box.inputValue()).toBe('German (de)');
    // A filter that matches nothing, then Escape: German is still what the field shows (and what is chosen).
    await page.keyboard.type('zzzz');
    expect(await page.locator('#target-list li').allTextContents()).toEqual(['No language matches']);
    await page.keyboard.press('Escape');
    expect(await box.inputValue()).toBe('German (de)');
    // Typing a filter and leaving the field with Tab takes the highlighted match, as Enter does.
    await page.keyboard.type('engl');
    await page.keyboard.press('Tab');
    expect(await box.inputValue()).toBe('English (en)');
    // Clicking an option chooses it; clicking elsewhere with nothing typed changes nothing.
    await box.click();
    await page.locator('#target-list [role="option"]', { hasText: 'German (de)' }).click();
    expect(await box.inputValue()).toBe('German (de)');
    await box.click();
    await page.locator('h1').click();
    expect(await box.inputValue()).toBe('German (de)');
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem('dragoman.languages')!).target)).toBe('de');
    await context.close();
  });

  it('translates as you type: one request per pause, not per keystroke, none while one is on its way', async () => {
    const key = await server.key({ plan: 'pro' });
    const { context, page, requests } = await openPage(browser, server.url);
    // The page's timers run on a clock the test moves: a "pause" is exactly what the test says, however slow the
    // machine types.
    await page.clock.install();
    await enterKey(page, server.url, key);
    const live = page.getByLabel('Translate as you type');
    // Until the key's limit is known (its first answer), typing does not translate.
    expect(await live.isDisabled()).toBe(true);
    await pick(page, 'From', 'en');
    await pick(page, 'To', 'de');
    expect(await translateViaButton(page, DE.src)).not.toBe('');
    await expect.poll(() => live.isChecked(), POLL).toBe(true);
    const translations = () => requests.filter((u) => u.endsWith('/v1/translate')).length;
    expect(translations()).toBe(1);
    await page.clock.pauseAt(Date.now() + 60_000);
    const text = page.getByLabel('Text', { exact: true });
    await text.fill('');
    await text.focus();
    // 45 keystrokes with no pause between them send nothing; 599 ms of quiet neither; the 600th ms sends one.
    await page.keyboard.type(EN.src);
    expect(EN.src.length).toBeGreaterThan(20);
    await page.clock.runFor(599);
    await page.waitForTimeout(300);
    expect(translations()).toBe(1);
    await page.clock.runFor(1);
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).toBe(EN.beam4);
    expect(translations()).toBe(2);
    // Keystrokes 400 ms apart are no pause; the one after the last is.
    for (const c of ' Yes.') {
      await page.keyboard.type(c);
      await page.clock.runFor(400);
    }
    await page.waitForTimeout(300);
    expect(translations()).toBe(2);
    await page.clock.runFor(200);
    await expect.poll(() => translations(), POLL).toBe(3);
    await expect.poll(() => page.getByLabel('Translation').inputValue(), POLL).not.toBe(EN.beam4);
    // A pause with nothing changed sends nothing.
    await page.clock.runFor(5000);
    await page.waitForTimeout(300);
    expect(translations()).toBe(3);
    // A pause while a request is on its way sends nothing then; once the answer is back, the latest text goes, once.
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const sent: string[] = [];
    await page.route('**/v1/translate', async (route) => {
      inFlight++;
      most = Math.max(most, inFlight);
      sent.push((route.request().postDataJSON() as { q: string }).q);
      const response = await route.fetch();
      if (sent.length === 1) await held;
      inFlight--;
      await route.fulfill({ response });
    });
    await page.keyboard.type(' Maybe.');
    await page.clock.runFor(600);
    await expect.poll(() => sent.length, POLL).toBe(1);
    await page.keyboard.type(' Sure.');
    await page.clock.runFor(600);
    await page.waitForTimeout(500);
    expect(sent.length).toBe(1); // the pause has come; the first request is still on its way
    release();
    await expect.poll(() => sent.length, POLL).toBe(2);
    await expect.poll(() => inFlight, POLL).toBe(0);
    expect(most).toBe(1);
    expect(sent).toEqual([`${EN.src} Yes. Maybe.`, `${EN.src} Yes. Maybe. Sure.`]);
    expect(translations()).toBe(5);
    await page.unroute('**/v1/translate');
    // Off: typing sends nothing; the choice is kept on this device.
    await live.uncheck();
    await text.focus();
    await page.keyboard.type(' No.');
    expect(await text.inputValue()).toBe(`${EN.src} Yes. Maybe. Sure. No.`);
    await page.clock.runFor(5000);
    await page.waitForTimeout(300);
    expect(translations()).toBe(5);
    expect(await page.evaluate(() => localStorage.getItem('dragoman.liveTranslate'))).toBe('off');
    await context.close();
  });

  it('a key of 10 requests a minute (free) does not translate as you type', async () => {
    const key = await server.key({ plan: 'free' });
    const { context, page, requests } = await openPage(browser, server.url);
    await enterKey(page, server.url, key);
    await pick(page, 'From', 'en');
    await pick(page, 'To', 'de');
    await translateViaButton(page, DE.src);
    const live = page.getByLabel('Translate as you type');
    await expect.poll(() => page.locator('#live-hint').textContent(), POLL).toContain('this key allows 10 requests a minute');
    expect(await live.isChecked()).toBe(false);
    expect(await live.isDisabled()).toBe(true);
    const text = page.getByLabel('Text', { exact: true });
    await text.fill('');
    await text.focus();
    await page.keyboard.type(EN.src, { delay: 20 });
    await page.waitForTimeout(1500);
    expect(requests.filter((u) => u.endsWith('/v1/translate')).length).toBe(1);
    await context.close();
  });

  it('fits a phone-width screen without sideways scrolling', async () => {
    const key = await server.key();
    const { context, page } = await openPage(browser, server.url, { viewport: { width: 360, height: 740 } });
    await enterKey(page, server.url, key);
    await ready(page);
    await pick(page, 'From', 'en');
    await pick(page, 'To', 'de');
    await translateViaButton(page, EN.src);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: join(RESULTS_DIR, 'ui-phone.png'), fullPage: true });
    await context.close();
  });
});

describe('DRAGOMAN_UI=off', () => {
  it('does not serve the page', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'dragoman-ui-nomodels-'));
    const off = await startUiServer({ DRAGOMAN_UI: 'off', DRAGOMAN_MODELS_DIR: empty });
    try {
      for (const path of ['/', '/ui/app.js']) {
        const res = await fetch(off.url + path);
        expect(res.status, path).toBe(404);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      }
    } finally {
      await off.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
