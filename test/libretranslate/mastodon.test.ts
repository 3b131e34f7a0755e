// A replay of what Mastodon's TranslationService::LibreTranslate sends (LIBRE_TRANSLATE_ENDPOINT pointed at
// /libretranslate): POST /translate with the JSON body Oj.dump(q: texts, source: 'auto', target, format:
// 'html', api_key) and Content-Type: application/json; GET /languages with the same header and no key. It
// reads translatedText[i] and detectedLanguage[i].language, maps languages as code => targets - [code], and
// treats 403 as "quota exceeded" and 429 as "too many requests".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompatServer, reference, send, startCompatServer } from '../google/harness.ts';

// Status texts as Mastodon renders them: HTML paragraphs with a mention link.
const EN_POST = '<p>The weather is very nice today and we are going to the park with <a href="https://example.social/@anna" class="u-url mention">@anna</a>.</p>';
const DE_POST = '<p>Das Wetter ist heute sehr schön und wir gehen in den Park.</p>';

let server: CompatServer;
let base: string;

beforeAll(async () => {
  server = await startCompatServer();
  base = `${server.url}/libretranslate`;
});

afterAll(async () => {
  await server?.close();
});

/** Mastodon's request: the body exactly as Oj.dump orders it, Content-Type application/json. */
function mastodonTranslate(texts: string[], target: string, apiKey: string, source = '') {
  return send(`${base}/translate`, {
    headers: { 'content-type': 'application/json' },
    json: { q: texts, source: source || 'auto', target, format: 'html', api_key: apiKey },
  });
}

describe("Mastodon's LibreTranslate requests", () => {
  it('translates a batch of statuses and reports each detected language', async () => {
    const { secret } = await server.key();
    const r = await mastodonTranslate([EN_POST, DE_POST], 'fr', secret);
    expect(r.status, r.text).toBe(200);
    // transform_response: data['translatedText'].map.with_index + data.dig('detectedLanguage', index, 'language')
    const translations = (r.body.translatedText as string[]).map((text, index) => ({
      text,
      detected: r.body.detectedLanguage?.[index]?.language,
    }));
    expect(translations.map((t) => t.detected)).toEqual(['en', 'de']);
    expect(translations[0]!.text).toBe((await reference(server.service, EN_POST, 'fr', 'en', 'html'))[0]);
    expect(translations[1]!.text).toBe((await reference(server.service, DE_POST, 'fr', 'de', 'html'))[0]);
    expect(translations[0]!.text).toContain('<a href="https://example.social/@anna" class="u-url mention">');
  });

  it('with a known source language, translatedText is still an array', async () => {
    const { secret } = await server.key();
    const r = await mastodonTranslate([DE_POST], 'en', secret, 'de');
    expect(r.status).toBe(200);
    expect(r.body.translatedText).toEqual(await reference(server.service, [DE_POST], 'en', 'de', 'html'));
  });

  it('GET /languages (no key, JSON content type, no body) reads as code => targets', async () => {
    const r = await send(`${base}/languages`, { method: 'GET', headers: { 'content-type': 'application/json' } });
    expect(r.status, r.text).toBe(200);
    const languages = new Map<string, string[]>(
      (r.body as { code: string; targets: string[] }[]).map((l) => [l.code, l.targets.filter((t) => t !== l.code)]),
    );
    expect(languages.get('en')).toEqual(expect.arrayContaining(['de', 'fr', 'cs']));
    expect(languages.get('de')).toEqual(expect.arrayContaining(['en', 'fr']));
    for (const l of r.body) expect(typeof l.name).toBe('string');
  });

  it('403 when the monthly quota is used up (QuotaExceededError)', async () => {
    const { secret } = await server.key({ plan: 'free', monthlyChars: 100 });
    const r = await mastodonTranslate([EN_POST], 'de', secret);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: expect.stringMatching(/quota/i) });
  });

  it('429 when rate limited (TooManyRequestsError), with Retry-After', async () => {
    const { secret } = await server.key({ plan: 'free', rpm: 1 });
    expect((await mastodonTranslate([DE_POST], 'en', secret, 'de')).status).toBe(200);
    const r = await mastodonTranslate([DE_POST], 'en', secret, 'de');
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(r.body).toEqual({ error: expect.any(String) });
  });
});
