// A translation memory on the LibreTranslate and Google v2 surfaces, through their extra `memory` field, against a
// real server: exact sentences come back as stored, the others from the model; a memory of another key is each
// surface's 404 body; a malformed field is its 400. Both by hand: the official clients send a fixed set of fields
// (@google-cloud/translate skips its request interceptors when it has an API key; the libretranslate npm client
// builds its body from five named options), so the requests are theirs with `memory` added.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompatServer, reference, startCompatServer } from '../google/harness.ts';
import { BASIC, EXACT } from './fixtures.ts';

const FRESH = 'The dog is in the garden.';

let server: CompatServer;
let key: string;
let memory: string;
let other: string;

const libre = (body: Record<string, unknown>, k = key) =>
  fetch(`${server.url}/libretranslate/translate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, api_key: k }) })
    .then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

/** What @google-cloud/translate's v2 client POSTs (the key as ?key=, a JSON body), with `memory` added. */
const google = (body: Record<string, unknown>, k = key) =>
  fetch(`${server.url}/language/translate/v2?key=${k}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    .then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

beforeAll(async () => {
  server = await startCompatServer();
  key = (await server.key()).secret;
  other = (await server.key()).secret;
  const r = await fetch(`${server.url}/v1/memories?name=Basic`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/x-tmx+xml' }, body: BASIC });
  expect(r.status).toBe(201);
  memory = ((await r.json()) as any).data.memory.id;
});

afterAll(async () => {
  await server?.close();
});

describe('LibreTranslate /translate with memory', () => {
  it('returns the exact sentence as stored and the others from the model', async () => {
    const r = await libre({ q: [EXACT.source, FRESH], source: 'en', target: 'de', memory });
    expect(r.status).toBe(200);
    expect(r.body.translatedText).toEqual([EXACT.target, (await reference(server.service, FRESH, 'de', 'en'))[0]]);
    // Without the field, the same sentence is the model's.
    const plain = await libre({ q: EXACT.source, source: 'en', target: 'de' });
    expect(plain.body.translatedText).not.toBe(EXACT.target);
  });

  it("refuses another key's memory with its 404 body, and a malformed field with its 400", async () => {
    const r = await libre({ q: EXACT.source, source: 'en', target: 'de', memory }, other);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: `Translation memory '${memory}' not found.` });
    const bad = await libre({ q: EXACT.source, source: 'en', target: 'de', memory: [memory, memory] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("'memory' must be given once");
  });
});

describe('Google v2 translate with memory', () => {
  it('returns the exact sentence as stored and the others from the model', async () => {
    const r = await google({ q: [EXACT.source, FRESH], source: 'en', target: 'de', format: 'text', memory });
    expect(r.status).toBe(200);
    expect(r.body.data.translations.map((t: any) => t.translatedText)).toEqual([EXACT.target, (await reference(server.service, FRESH, 'de', 'en'))[0]]);
  });

  it("refuses another key's memory with Google's 404 error body", async () => {
    const r = await google({ q: EXACT.source, source: 'en', target: 'de', memory }, other);
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 404, message: `Translation memory '${memory}' not found.` });
  });

  it('takes the field from the query string too', async () => {
    const r = await fetch(`${server.url}/language/translate/v2?key=${key}&q=${encodeURIComponent(EXACT.source)}&source=en&target=de&format=text&memory=${memory}`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as any).data.translations[0].translatedText).toBe(EXACT.target);
  });
});
