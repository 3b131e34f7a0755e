// The page's Quality / Speed choice against a real server (the core fixture models and tiny-qwen3-mt) in Chromium: offered for a pair
// an LLM translator and an OPUS-MT model both serve (set first to the usual route's kind), hidden for a pair only one
// kind serves; each translation says which model answered, as X-Dragoman-Model names it.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { choose, enterKey, launchChromium, openPage, RESULTS_DIR, startUiServer, type UiServer } from './harness.ts';
import { everyTestNeeds } from '../tools.ts';
import { CORE_MODELS } from '../fixture-models.ts';
import { linkModel, tempDir } from '../engine/helpers.ts';

const POLL = { timeout: 60_000, interval: 100 };

let server: UiServer;
let browser: Browser;
const models = tempDir('dragoman-ui-models-');

const noChromium = everyTestNeeds('chromium');

beforeAll(async () => {
  if (noChromium) return;
  for (const m of [...CORE_MODELS, 'tiny-qwen3-mt']) linkModel(join(models.path, m), m);
  server = await startUiServer({ DRAGOMAN_MODELS_DIR: models.path });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  models.remove();
});

describe('the page: quality or speed', () => {
  it('offers the choice where both kinds serve the pair, and says which model answered', async () => {
    const key = await server.key({ plan: 'pro' });
    // What the page should name: the models the API itself picks for each kind.
    const modelFor = async (model: string, target = 'de') => (await fetch(`${server.url}/v1/translate`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'A man is walking.', source: 'en', target, ...(model ? { model } : {}) }),
    })).headers.get('x-dragoman-model');
    const [llm, nmt] = [await modelFor('quality'), await modelFor('speed')];
    expect(llm).not.toBe(nmt);

    const { context, page } = await openPage(browser, server.url, { viewport: { width: 1100, height: 1000 } });
    await enterKey(page, server.url, key);
    const choice = page.getByRole('group', { name: 'Model' });
    await choose(page, 'From', 'en');
    await choose(page, 'To', 'de');
    await expect.poll(() => choice.isVisible(), POLL).toBe(true);
    // The usual route for English -> German is the one-pair OPUS-MT model: "Speed" is chosen first.
    expect(await page.getByLabel('Speed').isChecked()).toBe(true);

    await page.getByLabel('Text', { exact: true }).fill('A man is walking.');
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => page.locator('#model-used').textContent(), POLL).toBe(`Translated by ${nmt}.`);

    await page.getByLabel('Quality (LLM translator)').check();
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => page.locator('#model-used').textContent(), POLL).toBe(`Translated by ${llm}.`);
    expect(await page.getByLabel('Translation').inputValue()).not.toBe('');
    await page.screenshot({ path: join(RESULTS_DIR, 'ui-model-choice.png'), fullPage: true });

    // English -> French: no LLM translator declares it, so there is nothing to choose.
    await choose(page, 'To', 'fr');
    await expect.poll(() => choice.isVisible(), POLL).toBe(false);
    await page.getByRole('button', { name: 'Translate', exact: true }).click();
    await expect.poll(() => page.locator('#model-used').textContent(), POLL).toBe(`Translated by ${await modelFor('', 'fr')}.`);
    expect(await page.locator('#model-used').textContent()).not.toContain(String(llm));
    await context.close();
  });
});
