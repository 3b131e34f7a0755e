// Google v2 wire format details, by hand-made requests against a real server: every shape Google's clients
// send (repeated q in GET, form, {"data":...}, nulls, cid), the answers' shapes, Google's error bodies, and
// where a key may come from (and that a query key never reaches the logs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types.ts';
import { type CompatServer, reference, send, serverWith, startCompatServer } from './harness.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const EN = 'The weather is very nice today and we are going to the park.';
const EN2 = 'The house is small.';
const DE = 'Das Wetter ist heute sehr schön und wir gehen in den Park.';
const RETRYABLE_REASONS = ['rateLimitExceeded', 'userRateLimitExceeded'];

let server: CompatServer;
let base: string;
let secret: string;
const H = () => ({ 'x-goog-api-key': secret });

/** A sentence whose translation the engine hook replaces with markup characters, to see how each format escapes. */
const SPECIAL = 'Special characters come back.';
const SPECIAL_OUT = 'Tom & Jerry <3 "quoted"';

/** The real engine, except that SPECIAL translates to SPECIAL_OUT (a model could output such characters). */
function specialEngine(engine: Engine): Engine {
  return new Proxy(engine, {
    get(target, prop, receiver) {
      if (prop !== 'translate') return Reflect.get(target, prop, receiver);
      return async (...args: Parameters<Engine['translate']>) => {
        const out = await target.translate(...args);
        return { ...out, translations: out.translations.map((t, i) => (args[0][i] === SPECIAL ? SPECIAL_OUT : t)) };
      };
    },
  });
}

beforeAll(async () => {
  server = await startCompatServer({}, { wrapEngine: specialEngine });
  base = `${server.url}/language/translate/v2`;
  secret = (await server.key()).secret;
});

afterAll(async () => {
  await server?.close();
});

/** Google's error body, exactly: the fields a Google client reads and nothing else. */
function expectGoogleError(r: { status: number; headers: Headers; body: any }, code: number, status: string, reason: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(code);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(r.body)).toEqual(['error']);
  expect(Object.keys(r.body.error).sort()).toEqual(['code', 'errors', 'message', 'status']);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.status).toBe(status);
  expect(r.body.error.errors).toEqual([{ message: r.body.error.message, domain: 'global', reason }]);
  return r.body.error.message as string;
}

describe('request shapes', () => {
  it('GET with q repeated translates each q, html by default', async () => {
    const r = await send(`${base}?q=${encodeURIComponent(EN)}&q=${encodeURIComponent(EN2)}&target=de`, { headers: H() });
    expect(r.status).toBe(200);
    expect(r.body.data.translations.map((t: any) => t.translatedText)).toEqual(
      await reference(server.service, [EN, EN2], 'de', undefined, 'html'),
    );
    expect(r.body.data.translations.map((t: any) => t.detectedSourceLanguage)).toEqual(['en', 'en']);
  });

  it('the trailing-slash form of the bare path works too', async () => {
    const r = await send(`${base}/?q=${encodeURIComponent(EN2)}&target=de&source=en`, { headers: H() });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { translations: [{ translatedText: (await reference(server.service, EN2, 'de', 'en', 'html'))[0] }] } });
  });

  it('form-encoded POST with q repeated', async () => {
    const form = new URLSearchParams([['q', EN], ['q', EN2], ['target', 'de'], ['source', 'en'], ['format', 'text']]);
    const r = await send(base, { headers: H(), form: form.toString() });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: { translations: (await reference(server.service, [EN, EN2], 'de', 'en')).map((translatedText) => ({ translatedText })) },
    });
  });

  it('form fields must be UTF-8: a Latin-1 byte or %FC is a 400, not a U+FFFD translated and charged', async () => {
    const ok = await send(base, { headers: H(), form: 'q=M%C3%BCnchen+ist+sch%C3%B6n.&target=de&source=de' });
    expect(ok.body.data.translations[0].translatedText).toBe('München ist schön.'); // source = target: returned as sent
    for (const form of [Buffer.from('q=M\xfcnchen&target=de&source=de', 'latin1'), 'q=M%FCnchen&target=de&source=de']) {
      const r = await send(base, { headers: H(), form });
      expect(expectGoogleError(r, 400, 'INVALID_ARGUMENT', 'invalid')).toMatch(/not valid UTF-8/);
    }
    // A "%" that starts no escape stays as it is, as URLSearchParams reads it.
    const percent = await send(base, { headers: H(), form: 'q=100%+sure&target=de&source=de' });
    expect(percent.body.data.translations[0].translatedText).toBe('100% sure');
  });

  it('a {"data": {...}} body means the same as the bare body', async () => {
    const fields = { q: [EN, EN2], target: 'de', format: 'text' };
    const wrapped = await send(base, { headers: H(), json: { data: fields } });
    const bare = await send(base, { headers: H(), json: fields });
    expect(wrapped.status).toBe(200);
    expect(wrapped.body).toEqual(bare.body);
    expect(wrapped.body.data.translations.map((t: any) => t.translatedText)).toEqual(await reference(server.service, [EN, EN2], 'de'));
  });

  it('null fields and an empty cid are "not set" (the Python cloud client sends them)', async () => {
    const r = await send(base, {
      headers: H(),
      json: { q: [EN2], target: 'de', source: null, format: null, model: null, cid: [] },
    });
    expect(r.status, r.text).toBe(200);
    // source null = detect; format null = Google's default html; model null = not asked for.
    expect(r.body).toEqual({
      data: {
        translations: [{ translatedText: (await reference(server.service, EN2, 'de', undefined, 'html'))[0], detectedSourceLanguage: 'en' }],
      },
    });
  });

  it('format defaults to html: markup is kept like an explicit format=html', async () => {
    const html = 'Hello <b>world</b>, the house is <i>small</i>.';
    const byDefault = await send(base, { headers: H(), json: { q: html, target: 'de', source: 'en' } });
    const explicit = await send(base, { headers: H(), json: { q: html, target: 'de', source: 'en', format: 'html' } });
    expect(byDefault.body).toEqual(explicit.body);
    const out = byDefault.body.data.translations[0].translatedText as string;
    expect(out).toBe((await reference(server.service, html, 'de', 'en', 'html'))[0]);
    for (const tag of ['<b>', '</b>', '<i>', '</i>']) expect(out.split(tag)).toHaveLength(2);
  });

  it('html (the default) answers entity-escaped text; format=text answers it plain', async () => {
    const html = await send(base, { headers: H(), json: { q: SPECIAL, target: 'de', source: 'en' } });
    expect(html.body.data.translations[0].translatedText).toBe('Tom &amp; Jerry &lt;3 "quoted"');
    const text = await send(base, { headers: H(), json: { q: SPECIAL, target: 'de', source: 'en', format: 'text' } });
    expect(text.body.data.translations[0].translatedText).toBe(SPECIAL_OUT);
  });

  it('model is accepted and answered as nmt on every translation', async () => {
    const r = await send(base, { headers: H(), json: { q: [EN, EN2], target: 'de', source: 'en', model: 'base' } });
    expect(r.body.data.translations.map((t: any) => t.model)).toEqual(['nmt', 'nmt']);
  });
});

describe('detect and languages', () => {
  it('detections are an array of one-element arrays, und when nothing is detectable', async () => {
    const r = await send(`${base}/detect`, { headers: H(), json: { q: [EN, DE, '12345'] } });
    expect(r.status).toBe(200);
    const detections = r.body.data.detections as any[][];
    expect(detections).toHaveLength(3);
    for (const d of detections) {
      expect(d).toHaveLength(1);
      expect(Object.keys(d[0]).sort()).toEqual(['confidence', 'isReliable', 'language']);
      expect(d[0].confidence).toBeGreaterThanOrEqual(0);
      expect(d[0].confidence).toBeLessThanOrEqual(1);
    }
    expect(detections.map((d) => d[0].language)).toEqual(['en', 'de', 'und']);
    expect(detections[2]![0]).toEqual({ language: 'und', isReliable: false, confidence: 0 });
    expect(detections[0]![0].confidence).toBeGreaterThan(0.5);
  });

  it('detect by GET with q repeated', async () => {
    const r = await send(`${base}/detect?q=${encodeURIComponent(DE)}&q=${encodeURIComponent(EN)}`, { headers: H() });
    expect(r.body.data.detections.map((d: any) => d[0].language)).toEqual(['de', 'en']);
  });

  it('languages without target are codes only; with target, names in that language', async () => {
    const codes = await send(`${base}/languages`, { headers: H() });
    expect(codes.status).toBe(200);
    const list = codes.body.data.languages as { language: string }[];
    for (const l of list) expect(Object.keys(l)).toEqual(['language']);
    expect(list.map((l) => l.language)).toEqual(expect.arrayContaining(['en', 'de', 'fr', 'cs']));

    const named = await send(`${base}/languages?target=de`, { headers: H() });
    const names = new Map((named.body.data.languages as { language: string; name: string }[]).map((l) => [l.language, l.name]));
    expect(names.get('de')).toBe('Deutsch');
    expect(names.get('en')).toBe('Englisch');
    expect(names.get('fr')).toBe('Französisch');
    expect(names.size).toBe(list.length);
  });
});

describe('Google error bodies', () => {
  it('missing target: 400 INVALID_ARGUMENT, reason required', async () => {
    const msg = expectGoogleError(await send(base, { headers: H(), json: { q: EN } }), 400, 'INVALID_ARGUMENT', 'required');
    expect(msg).toMatch(/target/);
  });

  it('unsupported target: 400 invalid, pointing at this surface\'s language list', async () => {
    const msg = expectGoogleError(await send(base, { headers: H(), json: { q: EN, target: 'xx' } }), 400, 'INVALID_ARGUMENT', 'invalid');
    expect(msg).toContain("'xx'");
    expect(msg).toContain('GET /language/translate/v2/languages');
  });

  it('malformed JSON: 400 parseError', async () => {
    const r = await send(base, { headers: { ...H(), 'content-type': 'application/json' }, form: '{"q": ' });
    expectGoogleError(r, 400, 'INVALID_ARGUMENT', 'parseError');
  });

  it('a text/plain body (even holding JSON) is 415 saying which content types work, not "missing q"', async () => {
    const r = await send(base, { headers: { ...H(), 'content-type': 'text/plain' }, form: JSON.stringify({ q: EN, target: 'de' }) });
    const msg = expectGoogleError(r, 415, 'INVALID_ARGUMENT', 'badRequest');
    expect(msg).toMatch(/application\/json.*x-www-form-urlencoded/);
    // A JSON body that is a string is JSON: it lacks q, it is not the wrong content type.
    const str = await send(base, { headers: { ...H(), 'content-type': 'application/json' }, form: '"Hello"' });
    expect(expectGoogleError(str, 400, 'INVALID_ARGUMENT', 'required')).toMatch(/'q'/);
  });

  it('no key: 403 forbidden; wrong key: 400 keyInvalid', async () => {
    expectGoogleError(await send(base, { json: { q: EN, target: 'de' } }), 403, 'PERMISSION_DENIED', 'forbidden');
    const msg = expectGoogleError(
      await send(base, { headers: { 'x-goog-api-key': 'dk_not_a_real_key_at_all_0000000' }, json: { q: EN, target: 'de' } }),
      400,
      'INVALID_ARGUMENT',
      'keyInvalid',
    );
    expect(msg).toMatch(/^API key not valid/);
  });

  it('X-API-Key is accepted like x-goog-api-key', async () => {
    const r = await send(base, { headers: { 'x-api-key': secret }, json: { q: EN2, target: 'de', source: 'en' } });
    expect(r.status).toBe(200);
  });

  it('rate limit: 429 RESOURCE_EXHAUSTED rateLimitExceeded with Retry-After', async () => {
    const { secret: limited } = await server.key({ plan: 'free', rpm: 1 });
    const headers = { 'x-goog-api-key': limited };
    expect((await send(`${base}/languages`, { headers })).status).toBe(200);
    const r = await send(`${base}/languages`, { headers });
    expectGoogleError(r, 429, 'RESOURCE_EXHAUSTED', 'rateLimitExceeded');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('monthly quota: 403 quotaExceeded (not a reason clients retry), nothing charged', async () => {
    const { id, secret: poor } = await server.key({ plan: 'free', monthlyChars: 20 });
    const r = await send(base, { headers: { 'x-goog-api-key': poor }, json: { q: EN, target: 'de' } });
    expectGoogleError(r, 403, 'PERMISSION_DENIED', 'quotaExceeded');
    expect(RETRYABLE_REASONS).not.toContain(r.body.error.errors[0].reason);
    expect(r.body.error.message).toMatch(/upgrade/i);
    const key = (await server.app.store.getKey(id))!;
    expect((await server.accounts.usage(key)).charactersUsed).toBe(0);
  });

  it('unknown path 404 notFound; wrong method 405 with Allow', async () => {
    expectGoogleError(await send(`${base}/translate`, { headers: H() }), 404, 'NOT_FOUND', 'notFound');
    expect(expectGoogleError(await send(`${base}/%zz`, { headers: H() }), 400, 'INVALID_ARGUMENT', 'invalid')).toMatch(/is not valid/);
    const r = await send(`${base}/detect`, { method: 'DELETE', headers: H() });
    expectGoogleError(r, 405, 'INVALID_ARGUMENT', 'httpMethodNotAllowed');
    expect(r.headers.get('allow')).toBe('GET, POST');
  });
});

describe('key in the query string', () => {
  it('is refused with DRAGOMAN_GOOGLE_KEY_IN_QUERY=off, even a valid key, and nothing is translated', async () => {
    // Refused before any translation: a server without models (which start in a fraction of the time) shows it.
    const closed = await startCompatServer({ DRAGOMAN_GOOGLE_KEY_IN_QUERY: 'off', DRAGOMAN_MODELS_DIR: mkdtempSync(join(tmpdir(), 'dragoman-no-models-')) });
    try {
      const { secret: k } = await closed.key();
      const url = `${closed.url}/language/translate/v2`;
      const r = await send(`${url}?key=${k}`, { json: { q: EN, target: 'de' } });
      const msg = expectGoogleError(r, 403, 'PERMISSION_DENIED', 'forbidden');
      expect(msg).toContain('DRAGOMAN_GOOGLE_KEY_IN_QUERY');
      expect(msg).not.toContain(k);
      // A header key does not make a key in the URL acceptable: it is already in someone's logs.
      expect((await send(`${url}?key=${k}`, { headers: { 'x-goog-api-key': k }, json: { q: EN, target: 'de' } })).status).toBe(403);
    } finally {
      await closed.close();
    }
  });

  it('is accepted by default, as every Google client sends it, and never written to a log line', async () => {
    const logLines: string[] = [];
    const open = await startCompatServer({ DRAGOMAN_LOG_LEVEL: 'info' }, { logLines });
    try {
      const { secret: k } = await open.key();
      const url = `${open.url}/language/translate/v2`;
      const ok = await send(`${url}?key=${k}&q=${encodeURIComponent(EN2)}&target=de`);
      expect(ok.status).toBe(200);
      expect((await send(`${url}/languages?key=${k}&target=en`)).status).toBe(200);
      const wrong = 'dk_wrong_key_that_must_not_be_logged_00';
      expect((await send(`${url}?key=${wrong}&q=x&target=de`)).status).toBe(400);
      // The same key twice is one key; two different keys are refused rather than one of them guessed.
      expect((await send(`${url}?key=${k}&key=${k}&q=${encodeURIComponent(EN2)}&target=de`)).status).toBe(200);
      const two = await send(`${url}?key=${wrong}&q=x&target=de`, { headers: { 'x-goog-api-key': k } });
      expect(expectGoogleError(two, 400, 'INVALID_ARGUMENT', 'badRequest')).toMatch(/two different API keys/);
      expect(logLines.length).toBeGreaterThan(0);
      expect(logLines.some((l) => l.includes('/language/translate/v2'))).toBe(true);
      for (const line of logLines) {
        expect(line).not.toContain(k);
        expect(line).not.toContain(wrong);
        expect(line).not.toContain('key=');
        expect(line).not.toContain('house'); // nor user text
      }
    } finally {
      await open.close();
    }
  });
});

describe('DRAGOMAN_GOOGLE_COMPAT=off', () => {
  it('removes the surface (404 in the /v1 body)', async () => {
    const app = await serverWith(server, { googleCompat: false });
    try {
      const r = await app.inject({ method: 'POST', url: '/language/translate/v2', headers: H(), payload: { q: EN, target: 'de' } });
      expect(r.statusCode).toBe(404);
      expect(r.json().error.type).toBe('invalid_request');
    } finally {
      await app.close();
    }
  });
});
