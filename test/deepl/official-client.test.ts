// The official deepl-node client (DeepLClient, which is also a Translator) pointed at a real Dragoman server with
// serverUrl, used only through its public API: what a program moving from DeepL to this server runs.
import * as deepl from 'deepl-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompatServer, reference, startCompatServer } from '../google/harness.ts';

const EN = 'The weather is very nice today and we are going to the park.';
const EN2 = 'The house is small.';

let server: CompatServer;
let secret: string;
let client: deepl.DeepLClient;
/** Requests that reached the server, to prove the client did not retry. */
let requests = 0;

const clientWith = (key: string) => new deepl.DeepLClient(key, { serverUrl: server.url, maxRetries: 0, sendPlatformInfo: false });

beforeAll(async () => {
  server = await startCompatServer();
  server.app.server.server.on('request', () => requests++);
  secret = (await server.key()).secret;
  client = clientWith(secret);
});

afterAll(async () => {
  await server?.close();
});

async function rejection(p: Promise<unknown>): Promise<Error> {
  return p.then(() => { throw new Error('expected a rejection'); }, (err: unknown) => err as Error);
}

describe('deepl-node against Dragoman: translation', () => {
  it('translates one text with a given source, as the service does', async () => {
    const r = await client.translateText(EN, 'en', 'de');
    expect(r.text).toBe((await reference(server.service, EN, 'de', 'en'))[0]);
    expect(r.text).not.toBe(EN);
    expect(r.detectedSourceLang).toBe('en');
    // deepl-node always asks for billed characters: the characters of the text.
    expect(r.billedCharacters).toBe(EN.length);
  });

  it('translates many texts with a detected source, in order', async () => {
    const rs = await client.translateText([EN, EN2], null, 'de');
    expect(rs.map((r) => r.text)).toEqual(await reference(server.service, [EN, EN2], 'de', 'en'));
    expect(rs.map((r) => r.detectedSourceLang)).toEqual(['en', 'en']);
  });

  it('takes regional targets (EN-US) and answers model_type_used (prefer_quality_optimized without an LLM translator: the classic kind)', async () => {
    const r = await client.translateText('Das Haus ist klein.', 'de', 'en-US', { modelType: 'prefer_quality_optimized' });
    expect(r.text).toBe((await reference(server.service, 'Das Haus ist klein.', 'en', 'de'))[0]);
    expect(r.modelTypeUsed).toBe('latency_optimized');
  });

  it("translates HTML with tagHandling 'html', keeping the tags and ignore_tags content", async () => {
    const html = 'Click <a href="https://example.com/">here</a> to <b>start</b> the program. <x-keep>the house</x-keep>';
    const r = await client.translateText(html, 'en', 'de', { tagHandling: 'html', ignoreTags: ['x-keep'] });
    expect(r.text).toContain('<a href="https://example.com/">');
    expect(r.text.match(/<b>/g)).toHaveLength(1);
    expect(r.text).toContain('<x-keep>the house</x-keep>');
  });

  it("refuses formality 'more' as DeepL does for a language without it, and accepts 'prefer_more'", async () => {
    const err = await rejection(client.translateText(EN2, 'en', 'de', { formality: 'more' }));
    expect(err).toBeInstanceOf(deepl.DeepLError);
    expect(err.message).toMatch(/formality/);
    const r = await client.translateText(EN2, 'en', 'de', { formality: 'prefer_more' });
    expect(r.text).toBe((await reference(server.service, EN2, 'de', 'en'))[0]);
  });
});

describe('deepl-node against Dragoman: account and languages', () => {
  it('reports usage equal to what /v1/usage counts, billed characters included', async () => {
    const key = await server.key();
    const c = clientWith(key.secret);
    const texts = [EN, 'Hello {{user_name}}, welcome!'];
    const rs = await c.translateText(texts, 'en', 'de', { context: 'A context string that is never billed.' });
    const billed = rs.reduce((n, r) => n + r.billedCharacters!, 0);
    const usage = await c.getUsage();
    const v1 = await fetch(`${server.url}/v1/usage`, { headers: { 'x-api-key': key.secret } }).then((r) => r.json()) as { data: { charactersUsed: number } };
    expect(billed).toBe(texts.join('').length);
    expect(usage.character!.count).toBe(billed);
    expect(v1.data.charactersUsed).toBe(billed);
    expect(usage.character!.limit).toBeGreaterThan(billed);
  });

  it('lists source and target languages in DeepL codes, targets with supportsFormality', async () => {
    const sources = await client.getSourceLanguages();
    const targets = await client.getTargetLanguages();
    expect(sources.map((l) => l.code)).toEqual(expect.arrayContaining(['en', 'de']));
    expect(targets.map((l) => l.code)).toEqual(expect.arrayContaining(['de', 'en-GB', 'en-US']));
    expect(targets.every((l) => l.supportsFormality === false)).toBe(true);
    expect(sources.every((l) => typeof l.name === 'string' && l.name.length > 0)).toBe(true);
  });
});

describe('deepl-node against Dragoman: glossaries', () => {
  it('creates, lists, reads, uses and deletes a glossary; another key cannot see it', async () => {
    const entries = new deepl.GlossaryEntries({ entries: { house: 'Vertrag', weather: 'Wetterlage' } });
    const g = await client.createGlossary('terms', 'en', 'de', entries);
    expect(g).toMatchObject({ name: 'terms', sourceLang: 'en', targetLang: 'de', entryCount: 2, ready: true });
    expect((await client.listGlossaries()).map((x) => x.glossaryId)).toContain(g.glossaryId);
    expect((await client.getGlossary(g.glossaryId)).entryCount).toBe(2);
    expect((await client.getGlossaryEntries(g.glossaryId)).entries()).toEqual({ house: 'Vertrag', weather: 'Wetterlage' });

    const r = await client.translateText(EN2, 'en', 'de', { glossary: g.glossaryId });
    expect(r.text).toContain('Vertrag');
    expect(r.text.match(/Vertrag/g)).toHaveLength(1);
    // A text without a term is translated as without the glossary.
    const plain = 'A man is riding a bicycle.';
    expect((await client.translateText(plain, 'en', 'de', { glossary: g.glossaryId })).text).toBe((await reference(server.service, plain, 'de', 'en'))[0]);

    const other = clientWith((await server.key()).secret);
    expect(await rejection(other.getGlossary(g.glossaryId))).toBeInstanceOf(deepl.GlossaryNotFoundError);
    expect(await rejection(other.translateText(EN2, 'en', 'de', { glossary: g.glossaryId }))).toBeInstanceOf(deepl.DeepLError);

    await client.deleteGlossary(g.glossaryId);
    expect(await rejection(client.getGlossary(g.glossaryId))).toBeInstanceOf(deepl.GlossaryNotFoundError);
  });

  it('lists glossary language pairs', async () => {
    const pairs = await client.getGlossaryLanguagePairs();
    expect(pairs).toEqual(expect.arrayContaining([{ sourceLang: 'en', targetLang: 'de' }]));
  });

  it('creates and reads a multilingual (v3) glossary', async () => {
    const g = await client.createMultilingualGlossary('multi', [
      { sourceLangCode: 'en', targetLangCode: 'de', entries: new deepl.GlossaryEntries({ entries: { house: 'Vertrag' } }) },
      { sourceLangCode: 'de', targetLangCode: 'en', entries: new deepl.GlossaryEntries({ entries: { Haus: 'building' } }) },
    ]);
    expect(g.dictionaries).toHaveLength(2);
    const back = await client.getMultilingualGlossaryDictionaryEntries(g.glossaryId, 'de', 'en');
    expect(back.entries.entries()).toEqual({ Haus: 'building' });
    expect((await client.listMultilingualGlossaries()).map((x) => x.glossaryId)).toContain(g.glossaryId);
    const r = await client.translateText(EN2, 'en', 'de', { glossary: g.glossaryId });
    expect(r.text).toContain('Vertrag');
    await client.deleteMultilingualGlossary(g.glossaryId);
    expect(await rejection(client.getMultilingualGlossary(g.glossaryId))).toBeInstanceOf(deepl.GlossaryNotFoundError);
  });
});

describe('deepl-node against Dragoman: errors', () => {
  it('a wrong key is an AuthorizationError (403), not retried', async () => {
    const before = requests;
    const err = await rejection(clientWith('dm_wrong').translateText(EN2, 'en', 'de'));
    expect(err).toBeInstanceOf(deepl.AuthorizationError);
    expect(requests - before).toBe(1);
  });

  it('an exhausted quota is a QuotaExceededError (456)', async () => {
    const { secret: small } = await server.key({ plan: 'free', monthlyChars: 10 });
    const err = await rejection(clientWith(small).translateText(EN, 'en', 'de'));
    expect(err).toBeInstanceOf(deepl.QuotaExceededError);
  });

  it('too many requests is a TooManyRequestsError (429) with Retry-After', async () => {
    const { secret: slow } = await server.key({ plan: 'free', rpm: 1 });
    const c = clientWith(slow);
    await c.getUsage();
    const err = await rejection(c.getUsage());
    expect(err).toBeInstanceOf(deepl.TooManyRequestsError);
    const res = await fetch(`${server.url}/v2/usage`, { headers: { authorization: `DeepL-Auth-Key ${slow}` } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('an unknown glossary is a GlossaryNotFoundError; bad parameters are 400 with a message', async () => {
    expect(await rejection(client.getGlossary('00000000-0000-0000-0000-000000000000'))).toBeInstanceOf(deepl.GlossaryNotFoundError);
    const res = await fetch(`${server.url}/v2/translate`, {
      method: 'POST',
      headers: { authorization: `DeepL-Auth-Key ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: ['x'], target_lang: 'XX' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: "Value for 'target_lang' not supported." });
  });
});
