// The web page of a server running its demo models (src/models/demo.ts): one line above the page says so and how to
// install real ones, from /ui/settings; a server with its own models shows no such line.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoInfo } from '../../src/models/demo.ts';
import { launchChromium, openPage, startUiServer, type UiServer } from './harness.ts';
import { everyTestNeeds } from '../tools.ts';

let demo: UiServer;
let plain: UiServer;
let browser: Browser;

// Without Chromium every test here is skipped, and counted in the run's summary (test/tools.ts).
const noChromium = everyTestNeeds('chromium');

beforeAll(async () => {
  if (noChromium) return;
  [demo, plain] = await Promise.all([startUiServer({}, { demo: demoInfo() }), startUiServer()]);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await demo?.close();
  await plain?.close();
});

describe('the demo banner', () => {
  it('shows the demo note on a demo server, and nothing on a server with its own models', async () => {
    for (const [server, shown] of [[demo, true], [plain, false]] as const) {
      const { page, context, consoleErrors } = await openPage(browser, server.url);
      try {
        const settings = page.waitForResponse((r) => r.url().endsWith('/ui/settings'));
        await page.goto(server.url);
        expect((await settings).status()).toBe(200);
        const banner = page.locator('#demo-banner');
        if (shown) {
          await banner.waitFor({ state: 'visible', timeout: 30_000 });
          expect(await banner.textContent()).toBe(demoInfo().note);
          expect(await banner.textContent()).toMatch(/dragoman models pull/);
        } else {
          // The page has read its settings (and the network is quiet since) and left the banner hidden.
          await page.waitForLoadState('networkidle');
          expect(await banner.isVisible()).toBe(false);
        }
        expect(consoleErrors).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });
});
