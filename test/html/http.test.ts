// format=html over HTTP on every surface (/v1, Google v2, LibreTranslate): the real server with the fixture models.
// Markup that once broke a surface (5000 nested inline tags, 4000 nested blocks) must come back as a
// translation with every tag kept, not as a 500.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompatServer, send, startCompatServer } from '../google/harness.ts';

let server: CompatServer;
let secret: string;

beforeAll(async () => {
  server = await startCompatServer();
  secret = (await server.key({ plan: 'enterprise' })).secret;
});

afterAll(async () => {
  await server?.close();
});

/** The translated string of one html request on each surface, with its status. */
async function translateEverywhere(q: string): Promise<{ surface: string; status: number; out: string }[]> {
  const v1 = await send(`${server.url}/v1/translate`, { headers: { 'x-api-key': secret }, json: { q, source: 'en', target: 'de', format: 'html' } });
  const google = await send(`${server.url}/language/translate/v2`, { headers: { 'x-goog-api-key': secret }, json: { q, source: 'en', target: 'de', format: 'html' } });
  const libre = await send(`${server.url}/libretranslate/translate`, { json: { q, source: 'en', target: 'de', format: 'html', api_key: secret } });
  return [
    { surface: 'v1', status: v1.status, out: v1.body?.data?.translations?.[0]?.translatedText },
    { surface: 'google', status: google.status, out: google.body?.data?.translations?.[0]?.translatedText },
    { surface: 'libretranslate', status: libre.status, out: libre.body?.translatedText },
  ];
}

describe('deeply nested markup over HTTP', () => {
  it('5000 nested <b> around a sentence: 200 with the sentence translated inside all of them', async () => {
    const q = '<b>'.repeat(5000) + 'A man in an orange hat.' + '</b>'.repeat(5000);
    for (const r of await translateEverywhere(q)) {
      expect(r.status, r.surface).toBe(200);
      expect(r.out.startsWith('<b>'.repeat(5000)), r.surface).toBe(true);
      expect(r.out.endsWith('</b>'.repeat(5000)), r.surface).toBe(true);
      const inner = r.out.slice(3 * 5000, r.out.length - 4 * 5000);
      expect(inner, r.surface).not.toMatch(/[<>]/);
      expect(inner, r.surface).not.toBe('A man in an orange hat.');
    }
  });

  it('4000 nested <div>: 200 with every div kept', async () => {
    const q = '<div>'.repeat(4000) + 'A dog runs on the grass.' + '</div>'.repeat(4000);
    for (const r of await translateEverywhere(q)) {
      expect(r.status, r.surface).toBe(200);
      expect(r.out.startsWith('<div>'.repeat(4000)) && r.out.endsWith('</div>'.repeat(4000)), r.surface).toBe(true);
      expect(r.out.slice(5 * 4000, r.out.length - 6 * 4000), r.surface).not.toBe('A dog runs on the grass.');
    }
  });
});
