// Black-box tests of the /v1 API over HTTP: the real server (fixture models, real detector, SQLite in a temp
// dir) on an ephemeral port. Time is driven through the app's clock, never slept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectErrorShape, type Reply, startTestApp, type TestApp } from './helpers.ts';

/** For the servers of tests that meter keys and addresses only: no model to load, so they start in a fraction of the time. */
const METERING_ONLY = { DRAGOMAN_MODELS_DIR: mkdtempSync(join(tmpdir(), 'dragoman-metering-only-')) };

const EN = [
  'A man in an orange hat starring at something.',
  'A Boston Terrier is running on lush green grass in front of a white fence.',
  'A girl in karate uniform breaking a stick with a front kick.',
];
const DE = [
  'Ein Mann mit einem orangefarbenen Hut, der etwas anstarrt.',
  'Ein Boston Terrier läuft über saftig-grünes Gras vor einem weißen Zaun.',
];
/** Any string containing this makes the wrapped engine fail, to test the 500 path. */
const BOOM = 'trigger an engine failure';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp(
    {},
    {
      wrapEngine: (engine: Engine): Engine =>
        Object.assign(Object.create(engine) as Engine, {
          translate: (segments: string[], ...rest: Parameters<Engine['translate']> extends [unknown, ...infer R] ? R : never) => {
            if (segments.some((s) => s.includes(BOOM))) return Promise.reject(new Error('simulated engine crash'));
            return engine.translate(segments, ...rest);
          },
        }),
    },
  );
  key = (await t.key({ plan: 'enterprise' })).secret;
});
afterAll(async () => {
  await t?.close();
});

describe('health and request ids', () => {
  it('GET /health needs no key and lists the loaded models', async () => {
    const r = await t.call('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ok');
    expect(r.body.models.map((m: { name: string }) => m.name).sort()).toEqual([
      'tiny-marian-de-en',
      'tiny-marian-en-de',
      'tiny-nllb',
    ]);
    expect(r.body.modelsLoaded).toBe(3);
  });

  it('every response carries X-Request-Id, a caller-supplied one is kept', async () => {
    for (const r of [
      await t.call('GET', '/health'),
      await t.call('GET', '/nope'),
      await t.call('POST', '/v1/translate', { body: { q: 'x', target: 'de' } }),
      await t.call('GET', '/v1/languages', { key }),
    ]) {
      expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    const mine = await t.call('GET', '/health', { headers: { 'x-request-id': 'trace-42' } });
    expect(mine.headers.get('x-request-id')).toBe('trace-42');
  });
});

describe('POST /v1/translate', () => {
  it('translates one string with a source: input echoed, no detectedSourceLanguage, model header', async () => {
    const r = await t.call('POST', '/v1/translate', { key, body: { q: EN[0], source: 'en', target: 'de' } });
    expect(r.status).toBe(200);
    expect(r.body.data.translations).toHaveLength(1);
    const [tr] = r.body.data.translations;
    expect(Object.keys(tr).sort()).toEqual(['input', 'translatedText']);
    expect(tr.input).toBe(EN[0]);
    expect(tr.translatedText).toMatch(/^Ein Mann/);
    expect(r.headers.get('x-dragoman-model')).toMatch(/^tiny-/);
  });

  it('without source, X-Dragoman-Detected-Confidence gives the confidence of each detection, in order', async () => {
    const q = [EN[0], DE[0], '12345'];
    const r = await t.call('POST', '/v1/translate', { key, body: { q, target: 'de' } });
    const header = r.headers.get('x-dragoman-detected-confidence')!.split(', ').map(Number);
    const detect = await t.call('POST', '/v1/detect', { key, body: { q } });
    expect(header).toEqual(detect.body.data.detections.map((d: { confidence: number }) => d.confidence));
    expect(header[2]).toBe(0);
    const given = await t.call('POST', '/v1/translate', { key, body: { q: EN[0], source: 'en', target: 'de' } });
    expect(given.headers.get('x-dragoman-detected-confidence')).toBeNull();
  });

  it('source "auto", "" or null means detect, like no source', async () => {
    for (const source of ['auto', 'AUTO', '', null]) {
      const r = await t.call('POST', '/v1/translate', { key, body: { q: [EN[0], DE[0]], source, target: 'de' } });
      expect(r.status).toBe(200);
      expect(r.body.data.translations.map((x: { detectedSourceLanguage: string }) => x.detectedSourceLanguage)).toEqual(['en', 'de']);
    }
  });

  it('detects per string when source is omitted and keeps the order of q', async () => {
    const q = [EN[0], DE[0], EN[1], DE[1], EN[2]];
    const r = await t.call('POST', '/v1/translate', { key, body: { q, target: 'de' } });
    expect(r.status).toBe(200);
    const out = r.body.data.translations;
    expect(out.map((x: { input: string }) => x.input)).toEqual(q);
    expect(out.map((x: { detectedSourceLanguage: string }) => x.detectedSourceLanguage)).toEqual(['en', 'de', 'en', 'de', 'en']);
    // German into German comes back unchanged; each English string equals its translation sent alone.
    expect(out[1].translatedText).toBe(DE[0]);
    expect(out[3].translatedText).toBe(DE[1]);
    for (const i of [0, 2, 4]) {
      const alone = await t.call('POST', '/v1/translate', { key, body: { q: q[i], source: 'en', target: 'de' } });
      expect(out[i].translatedText).toBe(alone.body.data.translations[0].translatedText);
    }
  });

  it('mixed-language batch into English uses both directions', async () => {
    const r = await t.call('POST', '/v1/translate', { key, body: { q: [DE[0], EN[0]], target: 'en' } });
    expect(r.status).toBe(200);
    expect(r.body.data.translations[0].translatedText).toMatch(/^A /);
    expect(r.body.data.translations[1].translatedText).toBe(EN[0]);
  });

  it('source equal to target returns the text unchanged', async () => {
    const r = await t.call('POST', '/v1/translate', { key, body: { q: ['Hallo Welt.', '  x '], source: 'de', target: 'de' } });
    expect(r.status).toBe(200);
    expect(r.body.data.translations.map((x: { translatedText: string }) => x.translatedText)).toEqual(['Hallo Welt.', '  x ']);
  });

  it('format html keeps the markup', async () => {
    const html = '<p>A man in an <b>orange hat</b>.</p>';
    const r = await t.call('POST', '/v1/translate', { key, body: { q: html, source: 'en', target: 'de', format: 'html' } });
    expect(r.status).toBe(200);
    const out: string = r.body.data.translations[0].translatedText;
    expect(out.startsWith('<p>')).toBe(true);
    expect(out.endsWith('</p>')).toBe(true);
    expect(out).toContain('<b>');
    expect(out).not.toBe(html);
  });

  it('accepts 128 strings and refuses 129 with the count and the maximum', async () => {
    const ok = await t.call('POST', '/v1/translate', { key, body: { q: Array(128).fill('Hallo'), source: 'de', target: 'de' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.translations).toHaveLength(128);
    const bad = await t.call('POST', '/v1/translate', { key, body: { q: Array(129).fill('Hallo'), source: 'de', target: 'de' } });
    const msg = expectErrorShape(bad, 400, 'invalid_request');
    expect(msg).toContain('129');
    expect(msg).toContain('128');
  });

  it('names the missing field', async () => {
    expect(expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { target: 'de' } }), 400, 'invalid_request')).toMatch(
      /Missing required field 'q'/,
    );
    expect(expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: 'x' } }), 400, 'invalid_request')).toMatch(
      /Missing required field 'target'/,
    );
  });

  it('names an unsupported target or source code and points to GET /v1/languages', async () => {
    const r = await t.call('POST', '/v1/translate', { key, body: { q: 'x', target: 'xx-bogus' } });
    const msg = expectErrorShape(r, 400, 'invalid_request');
    expect(msg).toContain("'xx-bogus'");
    expect(msg).toContain('GET /v1/languages');
    const s = expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: 'x', source: 'qq', target: 'de' } }), 400, 'invalid_request');
    expect(s).toContain("source language code 'qq'");
    // `und` is what detection answers, never a code to translate from or into: a 400, not a crash.
    const und = expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: 'x', source: 'und', target: 'de' } }), 400, 'invalid_request');
    expect(und).toContain("'und'");
    expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: 'x', source: 'en', target: 'und' } }), 400, 'invalid_request');
    expectErrorShape(await t.call('GET', '/v1/languages?target=und', { key }), 400, 'invalid_request');
  });

  it('refuses a catalog language no installed model writes, saying so', async () => {
    // ar-Latn is in the catalog but has no NLLB token and no Marian model: no route into it.
    const r = await t.call('POST', '/v1/translate', { key, body: { q: 'Hello.', source: 'en', target: 'ar-Latn' } });
    const msg = expectErrorShape(r, 400, 'invalid_request');
    expect(msg).toMatch(/No installed model translates English \('en'\)/);
    expect(msg).toContain('GET /v1/languages');
  });

  it('rejects wrong types and formats with specific messages', async () => {
    expect(expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: 5, target: 'de' } }), 400, 'invalid_request')).toMatch(/'q'/);
    expect(expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: ['a', 7], target: 'de' } }), 400, 'invalid_request')).toMatch(/q\[1\]/);
    expect(expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: [], target: 'de' } }), 400, 'invalid_request')).toMatch(/empty/);
    expect(expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: 'a', target: 'de', format: 'pdf' } }), 400, 'invalid_request')).toBe(
      "Field 'format' must be one of: text, html.",
    );
    // null is the default, like "source": null (a client serializing an unset option).
    const nullFormat = await t.call('POST', '/v1/translate', { key, body: { q: '<b>a</b>', source: 'de', target: 'de', format: null } });
    expect(nullFormat.status).toBe(200);
    expect(nullFormat.body.data.translations[0].translatedText).toBe('<b>a</b>');
    expect(expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: 'a', target: 3 } }), 400, 'invalid_request')).toMatch(/'target' must be a string/);
    expect(expectErrorShape(await t.call('POST', '/v1/translate', { key, body: { q: 'a', target: 'de', source: 5 } }), 400, 'invalid_request')).toMatch(
      /Field 'source' must be a string or null\./,
    );
  });

  it("a successful answer says the month's characters after it (plan, used, limit); a failed one does not", async () => {
    const k = await t.key({ plan: 'basic' });
    const first = await t.call('POST', '/v1/translate', { key: k.secret, body: { q: ['Hallo', 'Welt 😀'], source: 'de', target: 'de' } });
    expect([first.headers.get('x-dragoman-plan'), first.headers.get('x-dragoman-characters-used'), first.headers.get('x-dragoman-characters-limit')])
      .toEqual(['basic', '11', '5000000']);
    const detect = await t.call('POST', '/v1/detect', { key: k.secret, body: { q: 'Guten Morgen' } });
    expect(detect.headers.get('x-dragoman-characters-used')).toBe('23');
    const failed = await t.call('POST', '/v1/translate', { key: k.secret, body: { q: `Hello ${BOOM}.`, source: 'en', target: 'de' } });
    expect(failed.status).toBe(500);
    expect(failed.headers.get('x-dragoman-characters-used')).toBeNull();
    const unlimited = await t.key({ plan: 'enterprise' });
    const u = await t.call('POST', '/v1/detect', { key: unlimited.secret, body: { q: 'abc' } });
    expect([u.headers.get('x-dragoman-plan'), u.headers.get('x-dragoman-characters-limit')]).toEqual(['enterprise', 'unlimited']);
  });

  it('an engine failure is a 500 that says retrying is safe, charges nothing, and the service keeps serving', async () => {
    const k = await t.key({ plan: 'pro' });
    const r = await t.call('POST', '/v1/translate', { key: k.secret, body: { q: `Hello ${BOOM}.`, source: 'en', target: 'de' } });
    expect(expectErrorShape(r, 500, 'server_error')).toMatch(/retry/i);
    expect(JSON.stringify(r.body)).not.toContain('simulated');
    const usage = await t.call('GET', '/v1/usage', { key: k.secret });
    expect(usage.body.data.charactersUsed).toBe(0);
    const after = await t.call('POST', '/v1/translate', { key: k.secret, body: { q: EN[0], source: 'en', target: 'de' } });
    expect(after.status).toBe(200);
  });
});

describe('Fastify errors in the /v1 body', () => {
  it('JSON nested 100,000 levels deep is refused by name, on every surface; a string full of brackets is not nesting', async () => {
    const deep = `{"q":"x","target":"de","x":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    const r = await t.call('POST', '/v1/translate', { key, raw: deep, headers: { 'content-type': 'application/json' } });
    expect(expectErrorShape(r, 400, 'invalid_request')).toMatch(/nested more than 32 levels deep/);
    for (const path of ['/language/translate/v2', '/libretranslate/translate']) {
      const other = await t.call('POST', path, { key, raw: deep, headers: { 'content-type': 'application/json' } });
      expect(other.status, path).toBe(400);
      expect(JSON.stringify(other.body)).toMatch(/nested more than 32 levels deep/);
    }
    const brackets = await t.call('POST', '/v1/translate', { key, body: { q: '[['.repeat(50) + '\\"{{', source: 'en', target: 'de' } });
    expect(brackets.status).toBe(200);
  });

  it('malformed JSON, empty body, wrong content type, too large body', async () => {
    const bad = await t.call('POST', '/v1/translate', { key, raw: '{"q": "x",', headers: { 'content-type': 'application/json' } });
    expect(expectErrorShape(bad, 400, 'invalid_request')).toMatch(/Malformed JSON/);
    const empty = await t.call('POST', '/v1/translate', { key, raw: '', headers: { 'content-type': 'application/json' } });
    expect(expectErrorShape(empty, 400, 'invalid_request')).toMatch(/empty/);
    const ctype = await t.call('POST', '/v1/translate', { key, raw: 'q=x&target=de', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(expectErrorShape(ctype, 415, 'invalid_request')).toMatch(/application\/json/);
    const plain = await t.call('POST', '/v1/translate', { key, raw: 'hello', headers: { 'content-type': 'text/plain' } });
    expect(expectErrorShape(plain, 415, 'invalid_request')).toMatch(/application\/json/);
    const big = await t.call('POST', '/v1/translate', { key, body: { q: 'a'.repeat(1_100_000), target: 'de' } });
    expect(expectErrorShape(big, 413, 'invalid_request')).toMatch(/1048576 bytes/);
    const arr = await t.call('POST', '/v1/translate', { key, body: ['x'] });
    expect(expectErrorShape(arr, 400, 'invalid_request')).toMatch(/JSON object/);
  });

  it('too many characters per request', async () => {
    const r = await t.call('POST', '/v1/translate', { key, body: { q: ['a'.repeat(60_000), 'b'.repeat(40_001)], source: 'de', target: 'de' } });
    const msg = expectErrorShape(r, 400, 'invalid_request');
    expect(msg).toContain('100001');
    expect(msg).toContain('100000');
  });

  it('unknown route 404, wrong method 405 with Allow', async () => {
    expect(expectErrorShape(await t.call('GET', '/v1/nothing', { key }), 404, 'invalid_request')).toContain('/v1/nothing');
    const r = await t.call('GET', '/v1/translate', { key });
    expect(expectErrorShape(r, 405, 'invalid_request')).toContain('POST');
    expect(r.headers.get('allow')).toBe('POST');
    expect((await t.call('DELETE', '/v1/languages', { key })).status).toBe(405);
  });

  it('a trailing slash is the same endpoint', async () => {
    const r = await t.call('POST', '/v1/detect/', { key, body: { q: 'Guten Morgen, wie geht es dir heute?' } });
    expect(r.status).toBe(200);
    expect(r.body.data.detections[0].language).toBe('de');
    expect((await t.call('GET', '/v1/languages/', { key })).status).toBe(200);
    expect(expectErrorShape(await t.call('GET', '/v1/translate/', { key }), 405, 'invalid_request')).toContain('use POST');
  });
});

describe('authentication', () => {
  it('missing, malformed, unknown and revoked keys are 401 pointing at X-API-Key', async () => {
    const k = await t.key({ plan: 'free' });
    await t.accounts.store.revokeKey(k.id, t.clock.now());
    const cases = [undefined, 'nonsense', 'dk_' + 'A'.repeat(32), k.secret];
    for (const secret of cases) {
      const r = await t.call('POST', '/v1/translate', { key: secret, body: { q: 'x', target: 'de' } });
      expect(expectErrorShape(r, 401, 'authentication_error')).toContain('X-API-Key header');
    }
    const revoked = await t.call('GET', '/v1/usage', { key: k.secret });
    expect(revoked.body.error.message).toMatch(/revoked/);
  });

  it('a key in the query string is refused, even a valid one, and the message says so', async () => {
    const r = await t.call('GET', `/v1/languages?key=${encodeURIComponent(key)}`);
    const msg = expectErrorShape(r, 401, 'authentication_error');
    expect(msg).toMatch(/query string/);
    expect(msg).toContain('X-API-Key header');
    expect((await t.call('GET', `/v1/languages?key=${encodeURIComponent(key)}`, { key })).status).toBe(401);
  });

  it('repeated failed authentications from one address are rate limited', async () => {
    const other = await startTestApp(METERING_ONLY);
    try {
      const good = await other.key({ plan: 'enterprise' });
      let last;
      for (let i = 0; i < 21; i++) last = await other.call('GET', '/v1/usage', { key: 'dk_' + String(i).padStart(32, 'x') });
      expect(expectErrorShape(last!, 429, 'rate_limit')).toMatch(/invalid API key/);
      expect(Number(last!.headers.get('retry-after'))).toBe(60);
      // Blocked for everyone from that address until the window passes, then a good key works again.
      expect((await other.call('GET', '/v1/usage', { key: good.secret })).status).toBe(429);
      other.clock.advance(60_000);
      expect((await other.call('GET', '/v1/usage', { key: good.secret })).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('behind a trusted proxy (DRAGOMAN_TRUST_PROXY) the address is the client\'s from X-Forwarded-For, not the proxy\'s', async () => {
    const wrongKeys = async (app: TestApp, client: string) => {
      let last: Reply | undefined;
      for (let i = 0; i < 21; i++) {
        last = await app.call('GET', '/v1/usage', { key: 'dk_' + String(i).padStart(32, 'y'), headers: { 'x-forwarded-for': client } });
      }
      return last!;
    };
    const proxied = await startTestApp({ ...METERING_ONLY, DRAGOMAN_TRUST_PROXY: 'loopback' });
    try {
      const good = await proxied.key({ plan: 'enterprise' });
      expect((await wrongKeys(proxied, '203.0.113.9')).status).toBe(429);
      // Another client behind the same proxy is not locked out by the first one's mistakes...
      expect((await proxied.call('GET', '/v1/usage', { key: good.secret, headers: { 'x-forwarded-for': '203.0.113.10' } })).status).toBe(200);
      // ...and the one that sent them is.
      expect((await proxied.call('GET', '/v1/usage', { key: good.secret, headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(429);
    } finally {
      await proxied.close();
    }
    // Without it, X-Forwarded-For is the client's say-so and is ignored: every client of the proxy is one address.
    const direct = await startTestApp(METERING_ONLY);
    try {
      const good = await direct.key({ plan: 'enterprise' });
      expect((await wrongKeys(direct, '203.0.113.9')).status).toBe(429);
      expect((await direct.call('GET', '/v1/usage', { key: good.secret, headers: { 'x-forwarded-for': '203.0.113.10' } })).status).toBe(429);
    } finally {
      await direct.close();
    }
  });

  it('errors before routing (an undecodable URL, headers too large) and a "__proto__" key get the error body too', async () => {
    const bad = await t.call('GET', '/v1/%zz', { key });
    expect(expectErrorShape(bad, 400, 'invalid_request')).toMatch(/URL .* is not valid/);
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const huge = await t.call('GET', `/v1/languages?x=${'a'.repeat(100_000)}`, { key });
    expect(expectErrorShape(huge, 431, 'invalid_request')).toMatch(/too large/);
    expect(huge.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // Valid JSON with a "__proto__" key: the key is dropped, the request is served.
    const proto = await t.call('POST', '/v1/translate', { key, raw: '{"q":"Hello.","source":"en","target":"de","__proto__":{"x":1}}', headers: { 'content-type': 'application/json' } });
    expect(proto.status).toBe(200);
    // Bytes that are not UTF-8 (Latin-1 "Grüße.") are refused, not translated and charged as U+FFFD.
    const before = (await t.call('GET', '/v1/usage', { key })).body.data.charactersUsed;
    const latin1 = Buffer.concat([Buffer.from('{"q":"Gr'), Buffer.from([0xfc, 0xdf]), Buffer.from('e.","source":"de","target":"en"}')]);
    const res = await fetch(`${t.url}/v1/translate`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: latin1 });
    const notUtf8 = { status: res.status, headers: res.headers, body: await res.json() };
    expect(expectErrorShape(notUtf8, 400, 'invalid_request')).toMatch(/not valid UTF-8/);
    expect((await t.call('GET', '/v1/usage', { key })).body.data.charactersUsed).toBe(before);
    // A compressed body is 415 (not decoded; a plain body labelled gzip is not read as if unlabelled), uncharged.
    const { gzipSync } = await import('node:zlib');
    for (const body of [gzipSync('{"q":"Hello.","source":"en","target":"de"}'), Buffer.from('{"q":"Hello.","source":"en","target":"de"}')]) {
      const zres = await fetch(`${t.url}/v1/translate`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body });
      const zipped = { status: zres.status, headers: zres.headers, body: await zres.json() };
      expect(expectErrorShape(zipped, 415, 'invalid_request')).toMatch(/Content-Encoding gzip is not supported/);
    }
    expect((await t.call('GET', '/v1/usage', { key })).body.data.charactersUsed).toBe(before);
    // A request without a body is not refused for the header (some proxies add it everywhere).
    expect((await t.call('GET', '/v1/languages', { key, headers: { 'content-encoding': 'gzip' } })).status).toBe(200);
    // A UTF-8 byte order mark before the JSON is fine.
    const bom = await t.call('POST', '/v1/detect', { key, raw: '\ufeff{"q":"Guten Morgen, wie geht es Ihnen heute?"}', headers: { 'content-type': 'application/json' } });
    expect(bom.status).toBe(200);
    // The server still serves afterwards.
    expect((await t.call('GET', '/v1/languages', { key })).status).toBe(200);
  });
});

describe('a client that hangs up before its answer', () => {
  it('is refunded once (the work under way still finishes), and the server keeps serving', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let started = 0;
    const app = await startTestApp({}, {
      wrapEngine: (engine: Engine): Engine =>
        Object.assign(Object.create(engine) as Engine, {
          translate: async (...args: Parameters<Engine['translate']>) => {
            started++;
            await held;
            return engine.translate(...args);
          },
        }),
    });
    try {
      const { secret } = await app.key({ plan: 'enterprise' });
      const used = async () => (await app.call('GET', '/v1/usage', { key: secret })).body.data;
      const abort = new AbortController();
      const gone = fetch(`${app.url}/v1/translate`, {
        method: 'POST',
        signal: abort.signal,
        headers: { 'x-api-key': secret, 'content-type': 'application/json' },
        body: JSON.stringify({ q: 'Hello world.', source: 'en', target: 'de' }),
      }).catch((e: Error) => e.name);
      for (let i = 0; i < 200 && started === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect((await used()).charactersUsed).toBe(12); // charged before the work
      abort.abort();
      expect(await gone).toBe('AbortError');
      let after = await used();
      for (let i = 0; i < 200 && after.charactersUsed !== 0; i++) {
        await new Promise((r) => setTimeout(r, 10));
        after = await used();
      }
      expect(after).toMatchObject({ charactersUsed: 0, requests: 0 });
      release(); // the engine finishes the abandoned work; nothing is charged or refunded twice
      const next = await app.call('POST', '/v1/translate', { key: secret, body: { q: 'Hello world.', source: 'en', target: 'de' } });
      expect(next.status).toBe(200);
      expect((await used()).charactersUsed).toBe(12);
    } finally {
      release();
      await app.close();
    }
  });
});

describe('rate limit (rolling 60 s)', () => {
  it('the free plan (preset A: 10/min) gets 429 with the exact Retry-After, then is let in again', async () => {
    const k = (await t.key({ plan: 'free' })).secret;
    const t0 = t.clock.now();
    for (let i = 0; i < 10; i++) {
      const r = await t.call('GET', '/v1/languages', { key: k });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe('10');
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(9 - i));
      t.clock.advance(2_000); // requests at t0, t0+2s, ... t0+18s
    }
    t.clock.set(t0 + 20_500);
    const r = await t.call('POST', '/v1/translate', { key: k, body: { q: 'Hallo', source: 'de', target: 'de' } });
    const msg = expectErrorShape(r, 429, 'rate_limit');
    expect(msg).toMatch(/past 60 seconds/);
    // The oldest request (t0) leaves the window at t0+60s: 39.5 s from now, rounded up.
    expect(r.headers.get('retry-after')).toBe('40');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(r.headers.get('x-ratelimit-reset')).toBe('40');
    t.clock.set(t0 + 59_999);
    expect((await t.call('GET', '/v1/languages', { key: k })).status).toBe(429);
    t.clock.set(t0 + 60_000);
    const again = await t.call('GET', '/v1/languages', { key: k });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('0');
    // The next slot: the request at t0+2s leaves at t0+62s.
    const next = await t.call('GET', '/v1/languages', { key: k });
    expect(next.headers.get('retry-after')).toBe('2');
  });

  it('GET /v1/usage counts against the rate limit like every keyed endpoint, and costs no characters', async () => {
    const k = (await t.key({ plan: 'free', rpm: 2 })).secret;
    const first = await t.call('GET', '/v1/usage', { key: k });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(first.headers.get('x-ratelimit-reset')).toBe('60');
    expect((await t.call('POST', '/v1/translate', { key: k, body: { q: 'Hallo', source: 'de', target: 'de' } })).status).toBe(200);
    const refused = await t.call('GET', '/v1/usage', { key: k });
    expect(expectErrorShape(refused, 429, 'rate_limit')).toMatch(/past 60 seconds/);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect((await t.call('GET', '/v1/languages', { key: k })).status).toBe(429);
    expect((await t.call('GET', '/v1/usage', { key: 'dk_' + 'y'.repeat(32) })).status).toBe(401);
  });

  it('failed requests after admission still carry the X-RateLimit headers', async () => {
    const k = (await t.key({ plan: 'basic' })).secret;
    const r = await t.call('POST', '/v1/translate', { key: k, body: { q: 'x' } });
    expect(r.status).toBe(400);
    expect(r.headers.get('x-ratelimit-limit')).toBe('60');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(r.headers.get('x-ratelimit-reset')).toBe('60');
  });

  it('a per-key override and an edited plan change the limit', async () => {
    const k = (await t.key({ plan: 'free', rpm: 2 })).secret;
    expect((await t.call('GET', '/v1/usage', { key: k })).body.data.requestsPerMinute).toBe(2);
    await t.call('GET', '/v1/languages', { key: k });
    expect((await t.call('GET', '/v1/languages', { key: k })).status).toBe(429);
    await t.accounts.store.setPlan('basic', { rpm: 1 });
    const b = (await t.key({ plan: 'basic' })).secret;
    expect((await t.call('GET', '/v1/languages', { key: b })).status).toBe(200);
    expect((await t.call('GET', '/v1/languages', { key: b })).status).toBe(429);
    await t.accounts.store.resetPlan('basic', { rpm: true });
  });

  it("the page's keyless GET /ui/languages is limited per client address (DRAGOMAN_KEYLESS_RPM)", async () => {
    const limited = await startTestApp({ ...METERING_ONLY, DRAGOMAN_KEYLESS_RPM: '2' });
    try {
      expect((await limited.call('GET', '/ui/languages')).status).toBe(200);
      expect((await limited.call('GET', '/ui/languages?target=de')).status).toBe(200);
      const refused = await limited.call('GET', '/ui/languages');
      expect(expectErrorShape(refused, 429, 'rate_limit')).toMatch(/at most 2 in the past 60 seconds/);
      expect(refused.headers.get('retry-after')).toBe('60');
      // A key's own requests are not touched by it.
      const { secret } = await limited.key({ plan: 'pro' });
      expect((await limited.call('GET', '/v1/languages', { key: secret })).status).toBe(200);
      limited.clock.advance(60_001);
      expect((await limited.call('GET', '/ui/languages')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('monthly quota', () => {
  it('refuses whole at the boundary with 403, charges nothing, and failed requests cost nothing', async () => {
    const k = (await t.key({ plan: 'free', monthlyChars: 20 })).secret;
    const used = async () => (await t.call('GET', '/v1/usage', { key: k })).body.data.charactersUsed;
    // 14 code points: 'Hallo Welt 😀' is 12 (the emoji is one, though two UTF-16 units), 'ab' 2.
    expect((await t.call('POST', '/v1/translate', { key: k, body: { q: ['Hallo Welt 😀', 'ab'], source: 'de', target: 'de' } })).status).toBe(200);
    expect(await used()).toBe(14);
    // 7 more would make 21 > 20: refused whole, nothing charged.
    const over = await t.call('POST', '/v1/translate', { key: k, body: { q: 'sieben!', source: 'de', target: 'de' } });
    // The 20 is the key's own limit, not the free plan's 500,000: the message says whose it is.
    expect(expectErrorShape(over, 403, 'quota_exceeded')).toMatch(
      /only 6 of the 20 characters this key is allowed \(its own limit, on the free plan\) are left .*Upgrade the plan/,
    );
    expect(await used()).toBe(14);
    // Failures: bad target (400), engine failure (500), unknown route: none is charged.
    await t.call('POST', '/v1/translate', { key: k, body: { q: 'x', target: 'nope' } });
    await t.call('POST', '/v1/translate', { key: k, body: { q: BOOM, source: 'en', target: 'de' } });
    expect(await used()).toBe(14);
    // Exactly what is left (6) still fits; detect counts too.
    expect((await t.call('POST', '/v1/detect', { key: k, body: { q: 'sechs!' } })).status).toBe(200);
    expect(await used()).toBe(20);
    expect((await t.call('POST', '/v1/detect', { key: k, body: { q: 'x' } })).status).toBe(403);
  });

  it('the quota is the calendar month in UTC', async () => {
    const k = (await t.key({ plan: 'free', monthlyChars: 5 })).secret;
    const now = t.clock.now();
    const d = new Date(now);
    t.clock.set(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1);
    expect((await t.call('POST', '/v1/detect', { key: k, body: { q: 'abcde' } })).status).toBe(200);
    expect((await t.call('POST', '/v1/detect', { key: k, body: { q: 'a' } })).status).toBe(403);
    t.clock.advance(1); // 00:00:00.000 UTC on the 1st
    const u = await t.call('GET', '/v1/usage', { key: k });
    expect(u.body.data.charactersUsed).toBe(0);
    expect(u.body.data.periodStart).toMatch(/-01T00:00:00.000Z$/);
    expect((await t.call('POST', '/v1/detect', { key: k, body: { q: 'abcde' } })).status).toBe(200);
    t.clock.set(now + 120_000);
  });

  it('50 concurrent requests near the limit never overspend', async () => {
    const k = (await t.key({ plan: 'enterprise', monthlyChars: 1000 })).secret;
    // Spend 800 first: 200 left, each request below costs 20 -> exactly 10 fit.
    expect((await t.call('POST', '/v1/detect', { key: k, body: { q: 'x'.repeat(800) } })).status).toBe(200);
    const q = 'Ein Mann mit Hut..ab'; // 20 characters
    const results = await Promise.all(
      Array.from({ length: 50 }, () => t.call('POST', '/v1/translate', { key: k, body: { q, source: 'de', target: 'en' } })),
    );
    const ok = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.status === 403 && r.body.error.type === 'quota_exceeded').length;
    expect(ok).toBe(10);
    expect(refused).toBe(40);
    expect((await t.call('GET', '/v1/usage', { key: k })).body.data.charactersUsed).toBe(1000);
  });
});

describe('POST /v1/detect', () => {
  it('one detection per string, in order, input echoed', async () => {
    const r = await t.call('POST', '/v1/detect', { key, body: { q: [DE[0], EN[0]] } });
    expect(r.status).toBe(200);
    const d = r.body.data.detections;
    expect(d.map((x: { language: string }) => x.language)).toEqual(['de', 'en']);
    expect(d.map((x: { input: string }) => x.input)).toEqual([DE[0], EN[0]]);
    for (const x of d) {
      expect(Object.keys(x).sort()).toEqual(['confidence', 'input', 'isReliable', 'language']);
      expect(x.confidence).toBeGreaterThan(0);
      expect(x.confidence).toBeLessThanOrEqual(1);
    }
    const single = await t.call('POST', '/v1/detect', { key, body: { q: EN[1] } });
    expect(single.body.data.detections).toHaveLength(1);
    expect(expectErrorShape(await t.call('POST', '/v1/detect', { key, body: {} }), 400, 'invalid_request')).toMatch(/'q'/);
  });
});

describe('GET /v1/languages', () => {
  it('lists the languages the installed models translate, with names', async () => {
    const r = await t.call('GET', '/v1/languages', { key });
    expect(r.status).toBe(200);
    const langs: { language: string; name: string }[] = r.body.data.languages;
    const byCode = new Map(langs.map((l) => [l.language, l.name]));
    expect(byCode.get('en')).toBe('English');
    expect(byCode.get('de')).toBe('German');
    expect(new Set(langs.map((l) => l.language)).size).toBe(langs.length);
  });

  it('?target= localizes the names and sorts by them; an unknown target is 400', async () => {
    const r = await t.call('GET', '/v1/languages?target=de', { key });
    const langs: { language: string; name: string }[] = r.body.data.languages;
    expect(langs.find((l) => l.language === 'de')!.name).toBe('Deutsch');
    expect(langs.find((l) => l.language === 'en')!.name).toBe('Englisch');
    const names = langs.map((l) => l.name);
    expect(names).toEqual([...names].sort(new Intl.Collator('de').compare));
    expect(expectErrorShape(await t.call('GET', '/v1/languages?target=zz-nope', { key }), 400, 'invalid_request')).toContain('zz-nope');
  });
});

describe('GET /v1/usage and POST /v1/signup', () => {
  it('usage reports plan, period and limits, costs no characters and counts as one request', async () => {
    const k = await t.key({ plan: 'basic' });
    const r = await t.call('GET', '/v1/usage', { key: k.secret });
    expect(r.body.data).toMatchObject({
      keyId: k.id,
      plan: 'basic',
      charactersUsed: 0,
      characterLimit: 5_000_000,
      charactersRemaining: 5_000_000,
      requestsPerMinute: 60,
    });
    expect(r.headers.get('x-ratelimit-remaining')).toBe('59');
    const next = await t.call('GET', '/v1/languages', { key: k.secret });
    expect(next.headers.get('x-ratelimit-remaining')).toBe('58');
    expect((await t.call('GET', '/v1/usage', { key: k.secret })).body.data.charactersUsed).toBe(0);
  });

  it('signup gives a working free key (201), a few per address per hour', async () => {
    const r = await t.call('POST', '/v1/signup', { body: { email: 'a@example.org' } });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ plan: 'free' });
    expect(r.body.data.key).toMatch(/^dk_/);
    const u = await t.call('GET', '/v1/usage', { key: r.body.data.key });
    expect(u.body.data).toMatchObject({ plan: 'free', characterLimit: 500_000, requestsPerMinute: 10 });
    expect(expectErrorShape(await t.call('POST', '/v1/signup', { body: { email: 'nope' } }), 400, 'invalid_request')).toMatch(/email/);
    // Names are printed in the operator's terminal (keys list): no control or bidi characters in them.
    for (const [name, code] of [['\u001b]0;x\u0007', 'U+001B'], ['bell\u0007', 'U+0007'], ['a\nb', 'U+000A'], ['evil\u202etxt', 'U+202E']]) {
      expect(expectErrorShape(await t.call('POST', '/v1/signup', { body: { name } }), 400, 'invalid_request')).toContain(code);
    }
    expect(expectErrorShape(await t.call('POST', '/v1/signup', { body: { email: 'a\u0085b@example.org' } }), 400, 'invalid_request')).toContain('U+0085');
    for (let i = 0; i < 3; i++) expect((await t.call('POST', '/v1/signup', { body: {} })).status).toBe(201);
    expect((await t.call('POST', '/v1/signup')).status).toBe(201); // no body at all is fine too
    const sixth = await t.call('POST', '/v1/signup', { body: {} });
    expectErrorShape(sixth, 429, 'rate_limit');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(3000);
  });

  it('DRAGOMAN_SIGNUP=off answers 404', async () => {
    const off = await startTestApp({ DRAGOMAN_SIGNUP: 'off', DRAGOMAN_MODELS_DIR: '/nonexistent-models' });
    try {
      const msg = expectErrorShape(await off.call('POST', '/v1/signup', { body: {} }), 404, 'invalid_request');
      expect(msg).toContain('GET /v1/usage');
      expect(msg).not.toContain('and POST /v1/signup');
    } finally {
      await off.close();
    }
  });
});

describe('no models installed', () => {
  it('serves health, detect and languages, and says how to install a model on translate', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const empty = mkdtempSync(join(tmpdir(), 'dragoman-nomodels-'));
    const e = await startTestApp({ DRAGOMAN_MODELS_DIR: empty });
    try {
      const k = (await e.key()).secret;
      expect((await e.call('GET', '/health')).body).toMatchObject({ status: 'ok', modelsLoaded: 0 });
      expect((await e.call('GET', '/v1/languages', { key: k })).body.data.languages).toEqual([]);
      expect((await e.call('POST', '/v1/detect', { key: k, body: { q: EN[0] } })).body.data.detections[0].language).toBe('en');
      const r = await e.call('POST', '/v1/translate', { key: k, body: { q: EN[0], target: 'de' } });
      expect(expectErrorShape(r, 503, 'server_error')).toMatch(/No translation model is installed.*`dragoman models pull opus-mt-en-de`.*without network `dragoman models import FILE.tar`/);
      expect((await e.call('GET', '/v1/usage', { key: k })).body.data.charactersUsed).toBe(EN[0].length);
    } finally {
      await e.close();
    }
  });
});
