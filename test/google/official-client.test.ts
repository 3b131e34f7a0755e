// The official @google-cloud/translate v2 client, pointed at a real Dragoman server with
// GOOGLE_CLOUD_TRANSLATE_ENDPOINT, used only through its public API: this is what a migrating user runs.
// The Node client sends the key as ?key=, which the Google surface accepts by default.
import { v2 } from '@google-cloud/translate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompatServer, reference, startCompatServer } from './harness.ts';

const EN = 'The weather is very nice today and we are going to the park.';
const EN2 = 'The house is small.';
const DE = 'Das Wetter ist heute sehr schön und wir gehen in den Park.';

let server: CompatServer;
let client: v2.Translate;
/** Requests that reached the server, to prove the client did not retry. */
let requests = 0;

function clientWith(key: string): v2.Translate {
  return new v2.Translate({ key, projectId: 'dragoman-test' });
}

beforeAll(async () => {
  server = await startCompatServer();
  server.app.server.server.on('request', () => requests++);
  process.env.GOOGLE_CLOUD_TRANSLATE_ENDPOINT = `${server.url}/language/translate/v2`;
  client = clientWith((await server.key()).secret);
});

afterAll(async () => {
  delete process.env.GOOGLE_CLOUD_TRANSLATE_ENDPOINT;
  await server?.close();
});

describe('@google-cloud/translate v2 against Dragoman', () => {
  it('translates a single string without source, reporting the detected language', async () => {
    const [text, response] = await client.translate(EN, 'de');
    expect(typeof text).toBe('string');
    expect(text).toBe((await reference(server.service, EN, 'de'))[0]);
    expect(text).not.toBe(EN);
    expect(response.data.translations[0].detectedSourceLanguage).toBe('en');
  });

  it('translates a batch with a source, in order, without detectedSourceLanguage', async () => {
    const [texts, response] = await client.translate([EN, EN2], { from: 'en', to: 'de' });
    expect(texts).toEqual(await reference(server.service, [EN, EN2], 'de', 'en'));
    expect(texts[0]).not.toBe(texts[1]);
    expect(response.data.translations[0]).not.toHaveProperty('detectedSourceLanguage');
  });

  it('translates a batch mixing languages, each string from its own detected language', async () => {
    const [texts, response] = await client.translate([EN, DE], 'fr');
    expect(response.data.translations.map((t: { detectedSourceLanguage: string }) => t.detectedSourceLanguage)).toEqual([
      'en',
      'de',
    ]);
    expect(texts[0]).toBe((await reference(server.service, EN, 'fr', 'en'))[0]);
    expect(texts[1]).toBe((await reference(server.service, DE, 'fr', 'de'))[0]);
  });

  it('translates html (the client sends format=html for markup) keeping the tags', async () => {
    const html = 'Click <a href="https://example.com/">here</a> to <b>start</b> the program.';
    const [text] = await client.translate(html, { from: 'en', to: 'de' });
    expect(text).toBe((await reference(server.service, html, 'de', 'en', 'html'))[0]);
    expect(text).toContain('<a href="https://example.com/">');
    expect(text.match(/<\/a>/g)).toHaveLength(1);
    expect(text.match(/<b>/g)).toHaveLength(1);
    expect(text.match(/<\/b>/g)).toHaveLength(1);
  });

  it('accepts model (answered as nmt)', async () => {
    const [, response] = await client.translate(EN2, { from: 'en', to: 'de', model: 'nmt' });
    expect(response.data.translations[0].model).toBe('nmt');
  });

  it('detects one string and a batch', async () => {
    const [one] = await client.detect(EN);
    expect(one.language).toBe('en');
    expect(one.input).toBe(EN);
    expect(one.confidence).toBeGreaterThan(0);
    expect(one.confidence).toBeLessThanOrEqual(1);
    const [many] = await client.detect([EN, DE, '12345']);
    expect(many.map((d) => d.language)).toEqual(['en', 'de', 'und']);
  });

  it('lists languages with English names and with localized names', async () => {
    const [english] = await client.getLanguages();
    const byCode = new Map(english.map((l) => [l.code, l.name]));
    expect(byCode.get('en')).toBe('English');
    expect(byCode.get('de')).toBe('German');
    expect(byCode.get('fr')).toBe('French');
    const [german] = await client.getLanguages('de');
    expect(new Map(german.map((l) => [l.code, l.name])).get('de')).toBe('Deutsch');
  });

  it('surfaces a revoked key as the client error (400 keyInvalid), without retrying', async () => {
    const { id, secret } = await server.key();
    expect(await server.app.store.revokeKey(id, server.clock.now())).toBe(true);
    const before = requests;
    const error = await clientWith(secret).translate(EN, 'de').then(
      () => undefined,
      (err: unknown) => err as { code: number; message: string; errors: { reason: string; domain: string }[] },
    );
    expect(error).toBeDefined();
    expect(error!.code).toBe(400);
    expect(error!.message).toMatch(/API key not valid/);
    expect(error!.message).toMatch(/revoked/);
    expect(error!.errors[0]).toMatchObject({ reason: 'keyInvalid', domain: 'global' });
    expect(requests - before).toBe(1);
  });

  it('surfaces the monthly quota as a non-retried 403 quotaExceeded', async () => {
    const { secret } = await server.key({ plan: 'free', monthlyChars: 10 });
    const before = requests;
    const error = await clientWith(secret).translate(EN, 'de').then(
      () => undefined,
      (err: unknown) => err as { code: number; message: string; errors: { reason: string }[] },
    );
    expect(error!.code).toBe(403);
    expect(error!.message).toMatch(/quota/i);
    expect(error!.errors[0]!.reason).toBe('quotaExceeded');
    expect(requests - before).toBe(1);
  });
});
