// The `libretranslate` npm client against a real server at /libretranslate, through its public API (its
// one function, translate()). It fetches GET /languages before every call and refuses codes not listed
// there, then POSTs JSON with `apiKey`; it has no detect or languages function of its own, so those are
// exercised by hand in wire-format.test.ts.
import { translate } from 'libretranslate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompatServer, reference, startCompatServer } from '../google/harness.ts';

const EN = 'The weather is very nice today and we are going to the park.';
const EN2 = 'The house is small.';
const DE = 'Das Wetter ist heute sehr schön und wir gehen in den Park.';

let server: CompatServer;
let apiurl: string;
let apiKey: string;

beforeAll(async () => {
  server = await startCompatServer();
  apiurl = `${server.url}/libretranslate`;
  apiKey = (await server.key()).secret;
});

afterAll(async () => {
  await server?.close();
});

describe('libretranslate npm client against Dragoman', () => {
  it('translates a string with a source', async () => {
    const out = await translate({ query: EN, source: 'en', target: 'de', apiurl, apiKey });
    expect(out).toBe((await reference(server.service, EN, 'de', 'en'))[0]);
    expect(out).not.toBe(EN);
  });

  it('translates an array (q as array)', async () => {
    const out = await translate({ query: [EN, EN2] as unknown as string, source: 'en', target: 'de', apiurl, apiKey });
    expect(out).toEqual(await reference(server.service, [EN, EN2], 'de', 'en'));
  });

  it('translates with source auto (the default), each string from its detected language', async () => {
    const out = await translate({ query: [EN, DE] as unknown as string, target: 'fr', apiurl, apiKey });
    expect(out).toEqual([
      (await reference(server.service, EN, 'fr', 'en'))[0],
      (await reference(server.service, DE, 'fr', 'de'))[0],
    ]);
  });

  it('translates html keeping the markup', async () => {
    const html = '<p>Click <a href="https://example.com/">here</a> to <b>start</b>.</p>';
    const out: string = await translate({ query: html, source: 'en', target: 'de', format: 'html', apiurl, apiKey });
    expect(out).toBe((await reference(server.service, html, 'de', 'en', 'html'))[0]);
    expect(out.startsWith('<p>')).toBe(true);
    expect(out).toContain('<a href="https://example.com/">');
    expect(out.split('<b>')).toHaveLength(2);
  });

  it('reads the language codes from GET /languages (a listed code passes its check, an unknown one does not)', async () => {
    const out = await translate({ query: EN2, source: 'en', target: 'cs', apiurl, apiKey });
    expect(out).toBe((await reference(server.service, EN2, 'cs', 'en'))[0]);
    await expect(translate({ query: EN2, source: 'en', target: 'xx', apiurl, apiKey })).rejects.toThrow(/not found/);
  });

  it("the key's plan is what limits the client, not its GET /languages before each call", async () => {
    // A pro key (300 a minute): 150 calls in one minute of the test's clock, each preceded by GET /languages.
    // LibreTranslate exempts /languages from its limiter; a per-address limit on it made the client throw
    // "languages.forEach is not a function" on the 429 body long before the key's own limit.
    const pro = (await server.key({ plan: 'pro' })).secret;
    const expected = (await reference(server.service, EN2, 'de', 'en'))[0];
    for (let i = 0; i < 150; i++) {
      expect(await translate({ query: EN2, source: 'en', target: 'de', apiurl, apiKey: pro })).toBe(expected);
    }
    // A 2-a-minute key: the third call is refused by the key's limit (the client then returns the missing
    // translatedText of the 429 body), and GET /languages still answers.
    const slow = (await server.key({ plan: 'free', rpm: 2 })).secret;
    for (let i = 0; i < 2; i++) expect(await translate({ query: EN2, source: 'en', target: 'de', apiurl, apiKey: slow })).toBe(expected);
    expect(await translate({ query: EN2, source: 'en', target: 'de', apiurl, apiKey: slow })).toBeUndefined();
    expect((await fetch(`${apiurl}/languages`)).status).toBe(200);
  });
});
