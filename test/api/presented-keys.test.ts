// Where a key may be, the same on every surface (/v1, Google v2, LibreTranslate): a key in the query string under a
// known key name is refused unless the surface documents it, the same key sent twice is one key, and two different
// keys are a 400. Against the real server, with the header sent twice as two header lines.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
let key: string;
let other: string;

beforeAll(async () => {
  t = await startTestApp();
  key = (await t.key({ plan: 'enterprise' })).secret;
  other = (await t.key({ plan: 'enterprise' })).secret;
});
afterAll(async () => t?.close());

/** POST with header lines exactly as given (a repeated name = two lines). */
function post(path: string, headers: [string, string][], body: string, type = 'application/json'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // A name given twice becomes an array: Node writes it as two header lines.
    const grouped: Record<string, string[]> = { 'content-type': [type] };
    for (const [name, value] of headers) (grouped[name] ??= []).push(value);
    const req = request(`${t.url}${path}`, { method: 'POST', headers: grouped }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const V1 = { path: '/v1/translate', body: JSON.stringify({ q: 'Hello.', source: 'en', target: 'de' }) };
const GOOGLE = { path: '/language/translate/v2', body: JSON.stringify({ q: 'Hello.', source: 'en', target: 'de' }) };
const LIBRE = { path: '/libretranslate/translate', body: JSON.stringify({ q: 'Hello.', source: 'en', target: 'de' }) };

describe('a key in the query string', () => {
  it('is refused on /v1 under every known key name, even a valid key with a valid header', async () => {
    for (const name of ['key', 'api_key', 'apiKey', 'auth_key', 'API-KEY']) {
      const r = await post(`${V1.path}?${name}=${key}`, [['x-api-key', key]], V1.body);
      expect(r.status, `${name} ${r.body}`).toBe(401);
      expect(JSON.parse(r.body).error.message).toContain(`?${name}=`);
    }
    expect((await post(`${V1.path}?keyboard=1`, [['x-api-key', key]], V1.body)).status).toBe(200);
  });

  it("is refused on Google v2 under every name but Google's own ?key= (api_key, apiKey, auth_key)", async () => {
    for (const name of ['api_key', 'apiKey', 'auth_key']) {
      const r = await post(`${GOOGLE.path}?${name}=${key}`, [['x-goog-api-key', key]], GOOGLE.body);
      expect(r.status, name).toBe(403);
      expect(JSON.parse(r.body).error.message).toMatch(/query string/);
    }
  });

  it('is refused on LibreTranslate, whose clients send it in the body', async () => {
    for (const name of ['api_key', 'apiKey', 'key', 'auth_key']) {
      const r = await post(`${LIBRE.path}?${name}=${key}`, [], LIBRE.body);
      expect(r.status, name).toBe(403);
      expect(JSON.parse(r.body).error).toContain(`?${name}=`);
    }
    const form = new URLSearchParams({ q: 'Hello.', source: 'en', target: 'de', api_key: key }).toString();
    expect((await post(LIBRE.path, [], form, 'application/x-www-form-urlencoded')).status).toBe(200);
  });
});

describe('the same key twice is one key; two different keys are a 400', () => {
  it('X-API-Key sent twice on /v1, Google and LibreTranslate', async () => {
    for (const { path, body } of [V1, GOOGLE, LIBRE]) {
      expect((await post(path, [['x-api-key', key], ['x-api-key', key]], body)).status, path).toBe(200);
      const two = await post(path, [['x-api-key', key], ['x-api-key', other]], body);
      expect(two.status, path).toBe(400);
      expect(two.body).toMatch(/two different API keys/);
    }
  });

  it('x-goog-api-key and X-API-Key together on Google; api_key twice in a LibreTranslate form', async () => {
    expect((await post(GOOGLE.path, [['x-goog-api-key', key], ['x-api-key', key]], GOOGLE.body)).status).toBe(200);
    expect((await post(GOOGLE.path, [['x-goog-api-key', key], ['x-api-key', other]], GOOGLE.body)).status).toBe(400);
    const form = (a: string, b: string) => new URLSearchParams([['q', 'Hello.'], ['source', 'en'], ['target', 'de'], ['api_key', a], ['api_key', b]]).toString();
    expect((await post(LIBRE.path, [], form(key, key), 'application/x-www-form-urlencoded')).status).toBe(200);
    expect((await post(LIBRE.path, [], form(key, other), 'application/x-www-form-urlencoded')).status).toBe(400);
  });
});

describe('Authorization: Bearer on /v1', () => {
  it('is a 401 that says the header is ignored and names X-API-Key; nothing is translated or charged', async () => {
    const r = await post(V1.path, [['authorization', `Bearer ${key}`]], V1.body);
    expect(r.status).toBe(401);
    const body = JSON.parse(r.body) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('authentication_error');
    expect(body.error.message).toMatch(/ignores the Authorization header/);
    expect(body.error.message).toMatch(/X-API-Key/);
    expect(body.error.message).not.toContain(key);
    // With the key where /v1 reads it, the same request translates (the Authorization header changes nothing).
    expect((await post(V1.path, [['authorization', `Bearer ${key}`], ['x-api-key', key]], V1.body)).status).toBe(200);
  });
});
