// The NLLB path over HTTP: with tiny-nllb installed every NLLB language is listed (localized with
// ?target=), a language the model was never trained on still answers 200, and X-Dragoman-Model says which
// model(s) served each request — Marian before NLLB, both models in order for a pivot — and /metrics counts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { LANGUAGES } from '../../src/languages/catalog.ts';
import { linkModel, tempDir } from '../engine/helpers.ts';
import { startTestApp, type TestApp } from './helpers.ts';

describe('tiny-marian-en-de + tiny-nllb over HTTP', () => {
  const dir = tempDir('dragoman-nllb-api-');
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    linkModel(join(dir.path, 'tiny-marian-en-de'), 'tiny-marian-en-de');
    linkModel(join(dir.path, 'tiny-nllb'), 'tiny-nllb');
    t = await startTestApp({
      DRAGOMAN_MODELS_DIR: dir.path,
      DRAGOMAN_PRECISION: 'fp32',
      DRAGOMAN_METRICS_TOKEN: 'metrics-secret',
    });
    key = (await t.key()).secret;
  });
  afterAll(async () => {
    await t.close();
    dir.remove();
  });

  it('lists every catalog language NLLB has a token for (at least 195)', async () => {
    const r = await t.call('GET', '/v1/languages', { key });
    expect(r.status).toBe(200);
    const codes: string[] = r.body.data.languages.map((l: { language: string }) => l.language);
    const withNllb = LANGUAGES.filter((l) => l.nllb).map((l) => l.code);
    expect(withNllb.length).toBeGreaterThanOrEqual(195);
    expect(new Set(codes)).toEqual(new Set(withNllb));
    console.log(`/v1/languages with tiny-nllb: ${codes.length} entries`);
  });

  it('localizes the names with ?target=', async () => {
    const r = await t.call('GET', '/v1/languages?target=fr', { key });
    expect(r.status).toBe(200);
    const names = new Map<string, string>(r.body.data.languages.map((l: any) => [l.language, l.name]));
    expect(names.get('de')).toBe('allemand');
    expect(names.get('en')).toBe('anglais');
    expect(names.size).toBeGreaterThanOrEqual(195);
  });

  it('answers 200 with some text for a language the model knows but was never trained on', async () => {
    const r = await t.call('POST', '/v1/translate', { key, body: { q: 'A dog runs in the park.', source: 'en', target: 'sw' } });
    expect(r.status).toBe(200);
    expect(typeof r.body.data.translations[0].translatedText).toBe('string');
    expect(r.body.data.translations[0].translatedText.length).toBeGreaterThan(0);
    expect(r.headers.get('x-dragoman-model')).toBe('tiny-nllb');
  });

  it('serves en->de with Marian and de->fr with NLLB, as the header shows, and counts the choice', async () => {
    const enDe = await t.call('POST', '/v1/translate', { key, body: { q: 'A man is walking.', source: 'en', target: 'de' } });
    expect(enDe.status).toBe(200);
    expect(enDe.headers.get('x-dragoman-model')).toBe('tiny-marian-en-de');
    const deFr = await t.call('POST', '/v1/translate', { key, body: { q: 'Ein Mann geht.', source: 'de', target: 'fr' } });
    expect(deFr.status).toBe(200);
    expect(deFr.headers.get('x-dragoman-model')).toBe('tiny-nllb');

    // Auto-detected strings in three languages into French: each route named once, in the order first used.
    const mixed = await t.call('POST', '/v1/translate', {
      key,
      body: { q: ['Ein Mann geht in den Park.', 'Der Hund spielt im Garten.', 'Muž jde do parku se svým psem.'], target: 'fr' },
    });
    expect(mixed.status).toBe(200);
    expect(mixed.body.data.translations.map((x: any) => x.detectedSourceLanguage)).toEqual(['de', 'de', 'cs']);
    expect(mixed.headers.get('x-dragoman-model')).toBe('tiny-nllb');
    // No model ran: the header says so rather than being absent.
    const same = await t.call('POST', '/v1/translate', { key, body: { q: 'Hallo', source: 'de', target: 'de' } });
    expect(same.headers.get('x-dragoman-model')).toBe('none');
    // Nor for text without a letter: it comes back as it is.
    const digits = await t.call('POST', '/v1/translate', { key, body: { q: ['42', '1.\n2.'], source: 'en', target: 'de' } });
    expect(digits.body.data.translations.map((x: any) => x.translatedText)).toEqual(['42', '1.\n2.']);
    expect(digits.headers.get('x-dragoman-model')).toBe('none');

    const m = await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer metrics-secret' } });
    const text = await m.text();
    expect(text).toMatch(/dragoman_translation_routes_total\{[^}]*route="tiny-marian-en-de"[^}]*\} [1-9]/);
    expect(text).toMatch(/dragoman_translation_routes_total\{[^}]*route="tiny-nllb"[^}]*\} [1-9]/);
  });
});

describe('pivot over HTTP', () => {
  const dir = tempDir('dragoman-pivot-api-');
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    linkModel(join(dir.path, 'tiny-marian-en-de'), 'tiny-marian-en-de');
    // A copy of the de->en model declared as fr->en: fr->de has no direct model and no NLLB, so it pivots.
    linkModel(join(dir.path, 'fr-en-copy'), 'tiny-marian-de-en', { 'dragoman.json': '{"family":"marian","source":"fr","target":"en"}' });
    t = await startTestApp({ DRAGOMAN_MODELS_DIR: dir.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_BEAM: '1' });
    key = (await t.key()).secret;
  });
  afterAll(async () => {
    await t.close();
    dir.remove();
  });

  it('names both models in order and returns what running them one after the other gives', async () => {
    const src = 'Ein Mann fährt Fahrrad.';
    const pivot = await t.call('POST', '/v1/translate', { key, body: { q: src, source: 'fr', target: 'de' } });
    expect(pivot.status).toBe(200);
    expect(pivot.headers.get('x-dragoman-model')).toBe('fr-en-copy>tiny-marian-en-de');
    const english = await t.call('POST', '/v1/translate', { key, body: { q: src, source: 'fr', target: 'en' } });
    expect(english.headers.get('x-dragoman-model')).toBe('fr-en-copy');
    const german = await t.call('POST', '/v1/translate', {
      key,
      body: { q: english.body.data.translations[0].translatedText, source: 'en', target: 'de' },
    });
    expect(pivot.body.data.translations[0].translatedText).toBe(german.body.data.translations[0].translatedText);
  });
});
