// LibreTranslate wire format by hand-made requests against a real server: per-string detection, n-best
// alternatives, form and multipart bodies, keys, detect, frontend settings, CORS, LibreTranslate's error
// statuses and bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types.ts';
import { type CompatServer, type Reply, reference, replyOf, send, serverWith, startCompatServer } from '../google/harness.ts';

const EN = 'The weather is very nice today and we are going to the park.';
const EN2 = 'The house is small.';
const DE = 'Das Wetter ist heute sehr schön und wir gehen in den Park.';

let server: CompatServer;
let base: string;
let secret: string;
let keyId: string;
const logLines: string[] = [];
/** Set to make the engine's next translate call fail, as a crashed worker would. */
let failNext = false;

function failingEngine(engine: Engine): Engine {
  return new Proxy(engine, {
    get(target, prop, receiver) {
      if (prop === 'translate') {
        return (...args: Parameters<Engine['translate']>) => {
          if (failNext) {
            failNext = false;
            return Promise.reject(new Error('worker exited'));
          }
          return target.translate(...args);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

beforeAll(async () => {
  server = await startCompatServer({ DRAGOMAN_LOG_LEVEL: 'info' }, { logLines, wrapEngine: failingEngine });
  base = `${server.url}/libretranslate`;
  ({ secret, id: keyId } = await server.key());
});

afterAll(async () => {
  await server?.close();
});

const post = (path: string, json: unknown, headers: Record<string, string> = {}) => send(`${base}${path}`, { json, headers });

/** A multipart/form-data request as a browser's FormData sends it (fetch sets the boundary). */
async function postMultipart(path: string, form: FormData): Promise<Reply> {
  return replyOf(await fetch(`${base}${path}`, { method: 'POST', body: form }));
}

function formData(entries: [string, string | Blob][]): FormData {
  const form = new FormData();
  for (const [name, value] of entries) form.append(name, value);
  return form;
}

/** A LibreTranslate error: the status, JSON, and `{"error": message}` alone; returns the message. */
function expectLibreError(r: { status: number; body: any; headers: Headers }, status: number): string {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(r.body)).toEqual(['error']);
  expect(typeof r.body.error).toBe('string');
  return r.body.error as string;
}

async function charactersUsed(): Promise<number> {
  return (await server.accounts.usage((await server.app.store.getKey(keyId))!)).charactersUsed;
}

describe('translate', () => {
  it('array q with source auto: one detectedLanguage per string, each string translated from its own language', async () => {
    const r = await post('/translate', { q: [EN, DE], source: 'auto', target: 'fr', api_key: secret });
    expect(r.status, r.text).toBe(200);
    expect(r.body.detectedLanguage.map((d: any) => d.language)).toEqual(['en', 'de']);
    for (const d of r.body.detectedLanguage) {
      expect(Object.keys(d).sort()).toEqual(['confidence', 'language']);
      expect(d.confidence).toBeGreaterThan(1); // a percentage, not a 0..1 fraction
      expect(d.confidence).toBeLessThanOrEqual(100);
    }
    const fromEnglish = (await reference(server.service, EN, 'fr', 'en'))[0];
    const fromGerman = (await reference(server.service, DE, 'fr', 'de'))[0];
    expect(r.body.translatedText).toEqual([fromEnglish, fromGerman]);
    // Not the batch-as-one-language answer: the German string read as English translates differently.
    expect(fromGerman).not.toBe((await reference(server.service, DE, 'fr', 'en'))[0]);
  });

  it('string q: translatedText is a string; a given source means no detectedLanguage', async () => {
    const r = await post('/translate', { q: EN2, source: 'en', target: 'de', api_key: secret });
    expect(r.body).toEqual({ translatedText: (await reference(server.service, EN2, 'de', 'en'))[0] });
    const auto = await post('/translate', { q: EN2, source: 'auto', target: 'de', api_key: secret });
    expect(auto.body.detectedLanguage.language).toBe('en');
    expect(typeof auto.body.translatedText).toBe('string');
  });

  it('alternatives=2: two distinct n-best translations, different from translatedText', async () => {
    const r = await post('/translate', { q: EN, source: 'en', target: 'de', alternatives: 2, api_key: secret });
    expect(r.status, r.text).toBe(200);
    const { translatedText, alternatives } = r.body as { translatedText: string; alternatives: string[] };
    expect(alternatives).toHaveLength(2);
    expect(new Set([translatedText, ...alternatives]).size).toBe(3);
    // The same n-best the service gets from beam search (not copies, not re-runs with noise).
    const viaService = await server.service.translate(
      server.service.prepareTranslate({ q: EN, target: 'de', source: 'en' }, { alternatives: 2 }),
    );
    expect(translatedText).toBe(viaService.translations[0]!.translatedText);
    expect(alternatives).toEqual(viaService.translations[0]!.alternatives);
  });

  it('alternatives for an array q are one list per string; more than 3 is LibreTranslate\'s 400', async () => {
    const r = await post('/translate', { q: [EN, EN2], source: 'en', target: 'de', alternatives: 3, api_key: secret });
    expect(r.status, r.text).toBe(200);
    expect(r.body.alternatives).toHaveLength(2);
    r.body.alternatives.forEach((alts: string[], i: number) => {
      expect(alts.length).toBeGreaterThan(0);
      expect(alts.length).toBeLessThanOrEqual(3);
      expect(alts).not.toContain(r.body.translatedText[i]);
    });
    const before = await charactersUsed();
    for (const alternatives of [4, '9']) {
      const over = await post('/translate', { q: EN, source: 'en', target: 'de', alternatives, api_key: secret });
      expect(expectLibreError(over, 400)).toBe('Invalid request: alternatives parameter must be <= 3');
    }
    expect(await charactersUsed()).toBe(before);
  });

  it('form-encoded body: repeated q, api_key and alternatives as form fields', async () => {
    const form = new URLSearchParams([['q', EN], ['q', EN2], ['source', 'en'], ['target', 'de'], ['api_key', secret]]);
    const r = await send(`${base}/translate`, { form: form.toString() });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ translatedText: await reference(server.service, [EN, EN2], 'de', 'en') });

    const one = new URLSearchParams({ q: EN, source: 'en', target: 'de', alternatives: '1', api_key: secret });
    const r1 = await send(`${base}/translate`, { form: one.toString() });
    expect(r1.body.alternatives).toHaveLength(1);
    expect(r1.body.alternatives[0]).not.toBe(r1.body.translatedText);
  });

  it("LibreTranslate's own codes zt (Traditional Chinese) and pb (Brazilian Portuguese) are understood", async () => {
    const r = await post('/translate', { q: EN2, source: 'en', target: 'zt', api_key: secret });
    expect(r.status, r.text).toBe(200);
    expect(r.body.translatedText).toBe((await reference(server.service, EN2, 'zh-TW', 'en'))[0]);
    const pb = await post('/translate', { q: EN2, source: 'en', target: 'pb', api_key: secret });
    expect(pb.body.translatedText).toBe((await reference(server.service, EN2, 'pt', 'en'))[0]);
  });

  it('the key may be api_key, apiKey or X-API-Key', async () => {
    const fields = { q: EN2, source: 'en', target: 'de' };
    expect((await post('/translate', { ...fields, apiKey: secret })).status).toBe(200);
    expect((await post('/translate', { ...fields, apiKey: '' }, { 'x-api-key': secret })).status).toBe(200);
    // The same key twice is one key; two different ones are refused rather than one of them charged.
    expect((await post('/translate', { ...fields, api_key: secret }, { 'x-api-key': secret })).status).toBe(200);
    expect((await post('/translate', { ...fields, apiKey: `${secret} ` }, { 'x-api-key': secret })).status).toBe(200);
    const two = await post('/translate', { ...fields, api_key: secret }, { 'x-api-key': 'dk_other_key_000000000000000' });
    expect(expectLibreError(two, 400)).toMatch(/two different API keys/);
  });
});

describe('detect, languages, settings', () => {
  it('detect: candidates best first with confidence in percent; per string for an array', async () => {
    const r = await post('/detect', { q: DE, api_key: secret });
    expect(r.status).toBe(200);
    const list = r.body as { confidence: number; language: string }[];
    expect(list[0]!.language).toBe('de');
    expect(list[0]!.confidence).toBeGreaterThan(1);
    for (let i = 1; i < list.length; i++) expect(list[i]!.confidence).toBeLessThanOrEqual(list[i - 1]!.confidence);

    const many = await post('/detect', { q: [EN, DE, '12345'], api_key: secret });
    expect(many.body.map((l: any[]) => l[0].language)).toEqual(['en', 'de', 'und']);
    expect(many.body[2]).toEqual([{ confidence: 0, language: 'und' }]);
  });

  it('languages: code, English name, targets from the installed models', async () => {
    const r = await send(`${base}/languages`);
    expect(r.status).toBe(200);
    const en = (r.body as any[]).find((l) => l.code === 'en');
    expect(en.name).toBe('English');
    expect(en.targets).toEqual(expect.arrayContaining(['de', 'fr', 'cs']));
    expect(en.targets).not.toContain('en');
    expect(Object.keys(en).sort()).toEqual(['code', 'name', 'targets']);
  });

  it('frontend/settings: the fields clients read, without a key', async () => {
    const r = await send(`${base}/frontend/settings`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      charLimit: server.config.maxChars,
      keyRequired: true,
      suggestions: false,
      filesTranslation: true,
      supportedFilesFormat: expect.arrayContaining(['.txt', '.md', '.html', '.srt', '.vtt', '.xlf', '.po']),
      language: { source: { code: 'auto' }, target: { code: 'en', name: 'English' } },
    });
  });
});

describe('errors in LibreTranslate shape', () => {

  it('wrong key and missing key: 403', async () => {
    const msg = expectLibreError(await post('/translate', { q: EN2, target: 'de', api_key: 'dk_wrong_key_0000000000000000' }), 403);
    expect(msg).toMatch(/Invalid API key/);
    expect(msg).toContain('api_key');
    expectLibreError(await post('/translate', { q: EN2, target: 'de' }), 403);
    expectLibreError(await post('/detect', { q: EN2, api_key: 'nope' }), 403);
  });

  it('400 for a bad request, naming this surface\'s language list', async () => {
    expect(expectLibreError(await post('/translate', { q: EN2, api_key: secret }), 400)).toMatch(/target/);
    const msg = expectLibreError(await post('/translate', { q: EN2, target: 'xx', api_key: secret }), 400);
    expect(msg).toContain('GET /libretranslate/languages');
    expect(expectLibreError(await post('/translate', { q: EN2, target: 'de', alternatives: 'many', api_key: secret }), 400)).toMatch(
      /alternatives/,
    );
  });

  it('500 says a retry is safe, and the failed request is not charged', async () => {
    const key = (await server.app.store.getKey(keyId))!;
    const before = (await server.accounts.usage(key)).charactersUsed;
    failNext = true;
    const msg = expectLibreError(await post('/translate', { q: EN2, source: 'en', target: 'de', api_key: secret }), 500);
    expect(msg).toMatch(/retry/i);
    expect(msg).toMatch(/safe/i);
    expect(msg).not.toContain('worker exited');
    expect((await server.accounts.usage(key)).charactersUsed).toBe(before);
    expect((await post('/translate', { q: EN2, source: 'en', target: 'de', api_key: secret })).status).toBe(200);
  });

  it('404 and 405 in the same shape', async () => {
    expectLibreError(await send(`${base}/suggest`, { method: 'POST' }), 404);
    const r = await send(`${base}/translate`);
    expectLibreError(r, 405);
    expect(r.headers.get('allow')).toBe('POST');
    // A URL that cannot even be decoded: the same shape, with the CORS headers.
    const bad = await send(`${base}/%zz`);
    expect(expectLibreError(bad, 400)).toMatch(/is not valid/);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('GET /languages and GET /frontend/settings need no key and are limited per client address instead', async () => {
    const limited = await startCompatServer({ DRAGOMAN_KEYLESS_RPM: '4', DRAGOMAN_TRUST_PROXY: 'on' });
    try {
      const lt = `${limited.url}/libretranslate`;
      const from = (address: string) => ({ headers: { 'x-forwarded-for': address } });
      for (const path of ['/languages', '/frontend/settings', '/languages', '/frontend/settings']) {
        expect((await send(`${lt}${path}`, from('198.51.100.1'))).status).toBe(200);
      }
      for (const path of ['/languages', '/frontend/settings']) {
        const refused = await send(`${lt}${path}`, from('198.51.100.1'));
        expect(refused.status).toBe(429);
        expect(refused.body).toEqual({ error: expect.stringMatching(/at most 4 in the past 60 seconds/) });
        expect(refused.headers.get('retry-after')).toBe('60');
        expect(refused.headers.get('access-control-allow-origin')).toBe('*');
      }
      // Another address has its own allowance; a CORS preflight is not counted; a minute later the first is back.
      expect((await send(`${lt}/languages`, from('198.51.100.2'))).status).toBe(200);
      expect((await send(`${lt}/translate`, { method: 'OPTIONS', ...from('198.51.100.1') })).status).toBe(204);
      limited.clock.advance(60_001);
      expect((await send(`${lt}/languages`, from('198.51.100.1'))).status).toBe(200);
      // The keyed surface is not touched by it: a key is limited by its plan alone.
      const { secret: k } = await limited.key();
      for (let i = 0; i < 4; i++) await send(`${lt}/languages`, from('198.51.100.3'));
      const keyed = await send(`${lt}/translate`, { json: { q: EN2, source: 'en', target: 'de', api_key: k }, ...from('198.51.100.3') });
      expect(keyed.status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('the default allowance (1200 a minute) lets a client ask for /languages before each of many translations', async () => {
    for (let i = 0; i < 150; i++) {
      expect((await send(`${base}/languages`)).status).toBe(200);
      expect((await send(`${base}/frontend/settings`)).status).toBe(200);
    }
  });

  it('a body key is never written to the log', async () => {
    expect(logLines.some((l) => l.includes('/libretranslate/translate'))).toBe(true);
    for (const line of logLines) {
      expect(line).not.toContain(secret);
      expect(line).not.toContain('dk_wrong_key');
    }
  });
});

describe('multipart/form-data bodies (a browser FormData)', () => {
  it('translate: repeated q is an array, api_key and the other fields are form fields; charged exactly', async () => {
    const before = await charactersUsed();
    const r = await postMultipart(
      '/translate',
      formData([['q', EN], ['q', EN2], ['source', 'en'], ['target', 'de'], ['api_key', secret]]),
    );
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ translatedText: await reference(server.service, [EN, EN2], 'de', 'en') });
    expect(r.headers.get('x-dragoman-model')).toBeTruthy();
    expect(await charactersUsed()).toBe(before + EN.length + EN2.length);

    const one = await postMultipart(
      '/translate',
      formData([['q', EN], ['source', 'auto'], ['target', 'de'], ['alternatives', '1'], ['format', 'text'], ['api_key', secret]]),
    );
    expect(one.status, one.text).toBe(200);
    expect(one.body.translatedText).toBe((await reference(server.service, EN, 'de', 'en'))[0]);
    expect(one.body.detectedLanguage.language).toBe('en');
    expect(one.body.alternatives).toHaveLength(1);
  });

  it('detect: q and api_key as multipart fields', async () => {
    const r = await postMultipart('/detect', formData([['q', DE], ['api_key', secret]]));
    expect(r.status, r.text).toBe(200);
    expect(r.body[0].language).toBe('de');
  });

  it('a file part is not a field (LibreTranslate reads request.values): q sent as a file is missing', async () => {
    const r = await postMultipart(
      '/translate',
      formData([['q', new File([EN], 'q.txt', { type: 'text/plain' })], ['target', 'de'], ['api_key', secret]]),
    );
    expect(r.status, r.text).toBe(400);
    expect(r.body).toEqual({ error: 'Invalid request: missing q parameter' });
  });

  it('a body over DRAGOMAN_MAX_BODY_BYTES is 413, also when streamed without a length; nothing is charged', async () => {
    const before = await charactersUsed();
    const big = await postMultipart(
      '/translate',
      formData([['q', 'a'.repeat(server.config.maxBodyBytes + 10)], ['target', 'de'], ['api_key', secret]]),
    );
    expect(big.status, big.text).toBe(413);
    expect(big.body.error).toContain(`${server.config.maxBodyBytes} bytes`);

    // Chunked: no Content-Length, so the limit must hold while the body streams in.
    const boundary = 'dragoman-test-boundary';
    const part = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const chunks = [part('api_key', secret), part('target', 'de'), part('q', 'b'.repeat(server.config.maxBodyBytes)), `--${boundary}--\r\n`];
    const res = await fetch(`${base}/translate`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: new ReadableStream({
        start(controller) {
          for (const c of chunks) controller.enqueue(new TextEncoder().encode(c));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: expect.stringContaining(`${server.config.maxBodyBytes} bytes`) });
    expect(await charactersUsed()).toBe(before);
  });

  it('a hand-written body as RFC 7578 allows it: preamble, epilogue, part Content-Types, quoted boundary', async () => {
    const b = 'x-Dragoman-42';
    const field = (name: string, value: string, type = '') =>
      `--${b}\r\nContent-Disposition: form-data; name="${name}"\r\n${type ? `Content-Type: ${type}\r\n` : ''}\r\n${value}\r\n`;
    const raw =
      'This is the preamble.\r\n' +
      field('q', 'Das Haus ist klein.', 'text/plain; charset=utf-8') +
      field('q', EN2) +
      field('__proto__', 'x') +
      field('source', 'auto') +
      field('target', 'fr', 'application/octet-stream') + // no filename: a field, as Werkzeug reads it
      field('api_key', secret) +
      `--${b}--\r\nThis is the epilogue.`;
    const r = await send(`${base}/translate`, { headers: { 'content-type': `multipart/form-data; boundary="${b}"` }, form: raw });
    expect(r.status, r.text).toBe(200);
    expect(r.body.detectedLanguage.map((d: any) => d.language)).toEqual(['de', 'en']);
    expect(r.body.translatedText).toEqual([
      (await reference(server.service, 'Das Haus ist klein.', 'fr', 'de'))[0],
      (await reference(server.service, EN2, 'fr', 'en'))[0],
    ]);
  });

  it('form and multipart fields must be UTF-8: a Latin-1 byte is a 400, not a U+FFFD translated and charged', async () => {
    const before = await charactersUsed();
    const b = 'x-Dragoman-43';
    const multipart = Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="q"\r\n\r\nM`),
      Buffer.from([0xfc]),
      Buffer.from(`nchen\r\n--${b}\r\nContent-Disposition: form-data; name="target"\r\n\r\nde\r\n--${b}\r\nContent-Disposition: form-data; name="source"\r\n\r\nde\r\n--${b}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n${secret}\r\n--${b}--\r\n`),
    ]);
    const bad = [
      await send(`${base}/translate`, { form: `q=M%FCnchen&target=de&source=de&api_key=${secret}` }),
      await send(`${base}/translate`, { form: Buffer.concat([Buffer.from('q=M'), Buffer.from([0xfc]), Buffer.from(`nchen&target=de&source=de&api_key=${secret}`)]) }),
      await send(`${base}/translate`, { headers: { 'content-type': `multipart/form-data; boundary=${b}` }, form: multipart }),
    ];
    for (const r of bad) expect(expectLibreError(r, 400)).toMatch(/not valid UTF-8/);
    expect(await charactersUsed()).toBe(before);
    // A U+FFFD the client really sent is text like any other.
    const real = await send(`${base}/translate`, { form: `q=%EF%BF%BD&target=de&source=de&api_key=${secret}` });
    expect(real.body.translatedText).toBe('\ufffd');
  });

  it('a malformed multipart body or one without a boundary is 400 in LibreTranslate shape', async () => {
    const noBoundary = await send(`${base}/translate`, {
      headers: { 'content-type': 'multipart/form-data' },
      form: 'q=x',
    });
    expect(noBoundary.status, noBoundary.text).toBe(400);
    expect(noBoundary.body.error).toMatch(/multipart/i);

    const truncated = await send(`${base}/translate`, {
      headers: { 'content-type': 'multipart/form-data; boundary=abc' },
      form: '--abc\r\nContent-Disposition: form-data; name="q"\r\n\r\nHello',
    });
    expect(truncated.status, truncated.text).toBe(400);
    expect(Object.keys(truncated.body)).toEqual(['error']);
    expect(truncated.body.error).toMatch(/multipart/i);
    expect(noBoundary.body.error).toBe(
      "Malformed multipart/form-data body: Boundary not found. Send the fields as a browser's FormData does.",
    );
    const empty = await send(`${base}/translate`, { headers: { 'content-type': 'multipart/form-data; boundary=abc' }, form: '' });
    expect(empty.status, empty.text).toBe(400);
    expect(empty.body.error).toMatch(/multipart/i);

    const xml = await send(`${base}/translate`, { headers: { 'content-type': 'application/xml' }, form: '<q>Hello</q>' });
    expect(xml.status).toBe(415);
    expect(xml.body.error).toContain('multipart/form-data');
  });
});

describe('CORS, as LibreTranslate adds to every response of its API', () => {
  const CORS = {
    'access-control-allow-origin': '*',
    'access-control-allow-headers': 'Authorization, Content-Type',
    'access-control-expose-headers': 'Authorization',
    'access-control-allow-methods': 'GET, POST',
    'access-control-allow-credentials': 'true',
    'access-control-max-age': '1728000',
  };
  const expectCors = (r: { headers: Headers; status: number }) => {
    for (const [name, value] of Object.entries(CORS)) expect(r.headers.get(name), `${name} on a ${r.status}`).toBe(value);
  };
  const origin = { origin: 'https://app.example' };

  it('a browser preflight is answered 204 with the CORS headers, on each endpoint, without a key or a charge', async () => {
    const before = await charactersUsed();
    for (const path of ['/translate', '/detect', '/languages', '/frontend/settings']) {
      const r = await fetch(`${base}${path}`, {
        method: 'OPTIONS',
        headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(r.status, path).toBe(204);
      expect(await r.text()).toBe('');
      expectCors(r);
    }
    expect(await charactersUsed()).toBe(before);
  });

  it('successful responses carry them', async () => {
    const r = await post('/translate', { q: EN2, source: 'en', target: 'de', api_key: secret }, origin);
    expect(r.status).toBe(200);
    expectCors(r);
    expectCors(await post('/detect', { q: EN2, api_key: secret }, origin));
    expectCors(await send(`${base}/languages`, { headers: origin }));
    expectCors(await send(`${base}/frontend/settings`, { headers: origin }));
    const multipart = await postMultipart('/translate', formData([['q', EN2], ['source', 'en'], ['target', 'de'], ['api_key', secret]]));
    expect(multipart.status).toBe(200);
    expectCors(multipart);
  });

  it('error responses carry them: 400, 403, 404, 405, 413, 415, 429, 500', async () => {
    const statuses: number[] = [];
    const check = (r: Reply | Response) => {
      statuses.push(r.status);
      expectCors(r);
    };
    check(await post('/translate', { q: EN2, target: 'xx', api_key: secret }, origin));
    check(await post('/translate', { q: EN2, target: 'de', api_key: 'dk_wrong_key_0000000000000000' }, origin));
    check(await send(`${base}/suggest`, { method: 'POST', headers: origin }));
    check(await send(`${base}/translate`, { headers: origin }));
    check(await post('/translate', { q: 'a'.repeat(server.config.maxBodyBytes + 10), target: 'de', api_key: secret }, origin));
    check(await send(`${base}/translate`, { headers: { ...origin, 'content-type': 'application/xml' }, form: '<q>hello</q>' }));
    const limited = (await server.key({ plan: 'free', rpm: 1 })).secret;
    await post('/detect', { q: EN2, api_key: limited });
    check(await post('/detect', { q: EN2, api_key: limited }, origin));
    failNext = true;
    check(await post('/translate', { q: EN2, source: 'en', target: 'de', api_key: secret }, origin));
    expect(statuses).toEqual([400, 403, 404, 405, 413, 415, 429, 500]);
  });

  it('only on this surface: /v1 answers no preflight and sends no CORS headers', async () => {
    const v1 = await send(`${server.url}/v1/languages`, { headers: { ...origin, 'x-api-key': secret } });
    expect(v1.status).toBe(200);
    expect(v1.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${server.url}/v1/translate`, {
      method: 'OPTIONS',
      headers: { ...origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe("LibreTranslate's handling of q, alternatives and a repeated api_key", () => {
  it('an empty q (missing, null, "", []) is 400 "Invalid request: missing q parameter", on translate and detect, not charged', async () => {
    const before = await charactersUsed();
    const missing = { error: 'Invalid request: missing q parameter' };
    for (const q of [undefined, null, '', []]) {
      const r = await post('/translate', { q, source: 'en', target: 'de', api_key: secret });
      expect(r.status, JSON.stringify(q)).toBe(400);
      expect(r.body).toEqual(missing);
      const d = await post('/detect', { q, api_key: secret });
      expect(d.status, JSON.stringify(q)).toBe(400);
      expect(d.body).toEqual(missing);
    }
    const form = await send(`${base}/translate`, { form: new URLSearchParams({ q: '', target: 'de', api_key: secret }).toString() });
    expect(form.status).toBe(400);
    expect(form.body).toEqual(missing);
    expect(await charactersUsed()).toBe(before);
  });

  it('an array of empty strings is not an empty q: each comes back empty, as LibreTranslate translates them', async () => {
    const r = await post('/translate', { q: ['', ''], source: 'en', target: 'de', api_key: secret });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ translatedText: ['', ''] });
  });

  it('alternatives below 0 are clamped to 0 (JSON and form), as LibreTranslate does', async () => {
    const expected = { translatedText: (await reference(server.service, EN2, 'de', 'en'))[0] };
    const json = await post('/translate', { q: EN2, source: 'en', target: 'de', alternatives: -1, api_key: secret });
    expect(json.status, json.text).toBe(200);
    expect(json.body).toEqual(expected);
    const form = await send(`${base}/translate`, {
      form: new URLSearchParams({ q: EN2, source: 'en', target: 'de', alternatives: '-1', api_key: secret }).toString(),
    });
    expect(form.status, form.text).toBe(200);
    expect(form.body).toEqual(expected);
  });

  it('a repeated form field counts with its first value, as request.values.get does; a repeated api_key is one key or a 400', async () => {
    const form = new URLSearchParams([
      ['q', EN2], ['source', 'en'], ['target', 'de'], ['target', 'fr'], ['api_key', secret], ['api_key', secret],
    ]);
    const r = await send(`${base}/translate`, { form: form.toString() });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ translatedText: (await reference(server.service, EN2, 'de', 'en'))[0] });
    const wrongFirst = new URLSearchParams([['q', EN2], ['target', 'de'], ['api_key', 'dk_wrong_key_0000000000000000'], ['api_key', secret]]);
    // Two different keys are refused as on every surface, rather than the first one charged.
    const two = await send(`${base}/translate`, { form: wrongFirst.toString() });
    expect(expectLibreError(two, 400)).toMatch(/two different API keys/);
  });
});

describe('DRAGOMAN_LIBRETRANSLATE_COMPAT=off', () => {
  it('removes the surface', async () => {
    const app = await serverWith(server, { libreTranslateCompat: false });
    try {
      const r = await app.inject({ method: 'GET', url: '/libretranslate/languages' });
      expect(r.statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});
