// Errors Node raises before a route runs — headers too large (431), a body that stalls (408) — answered in the
// error body of the surface the request was for, with LibreTranslate's CORS headers on that surface.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
const TIMEOUT_MS = 1_000;

beforeAll(async () => {
  t = await startTestApp({}, { requestTimeoutMs: TIMEOUT_MS });
  key = (await t.key()).secret;
});

afterAll(async () => {
  await t?.close();
});

interface RawReply {
  raw: string;
  status: number;
  headers: Map<string, string>;
  body: any;
  ms: number;
}

/** Send `bytes` on a fresh connection and read until the server closes it; the last response is parsed. */
function exchange(bytes: string): Promise<RawReply> {
  const { hostname, port } = new URL(t.url);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const last = text.slice(text.lastIndexOf('HTTP/1.1 '));
      const [head, ...rest] = last.split('\r\n\r\n');
      const lines = head!.split('\r\n');
      const headers = new Map(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
      resolve({ raw: text, status: Number(lines[0]!.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n\r\n')), ms: Date.now() - started });
    });
  });
}

let key = '';

/** A body that stops after a few bytes, with a valid key in the headers (so no surface can answer before the body). */
function stalled(path: string, withKey = true): string {
  const auth = withKey ? `X-API-Key: ${key}\r\n` : '';
  return `POST ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"q":"Hel`;
}

function oversized(path: string): string {
  return `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`;
}

describe('errors before routing, per surface', () => {
  it('/v1: 431 and 408 in the /v1 error body', async () => {
    for (const [bytes, status] of [[oversized('/v1/languages'), 431], [stalled('/v1/translate'), 408]] as const) {
      const r = await exchange(bytes);
      expect(r.status).toBe(status);
      expect(r.body).toEqual({ error: { code: status, message: expect.any(String), type: 'invalid_request' } });
      expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.headers.get('access-control-allow-origin')).toBeUndefined();
    }
  });

  it("Google v2: Google's error body", async () => {
    for (const [bytes, status] of [[oversized('/language/translate/v2/languages?target=de'), 431], [stalled('/language/translate/v2'), 408]] as const) {
      const r = await exchange(bytes);
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(status);
      expect(r.body.error.errors).toEqual([expect.objectContaining({ message: expect.any(String), domain: 'global' })]);
      expect(typeof r.body.error.status).toBe('string');
      expect(r.body.error.type).toBeUndefined();
    }
  });

  it("LibreTranslate: its {\"error\"} body with the CORS headers, and the 408 within seconds of the limit", async () => {
    for (const [bytes, status] of [[oversized('/libretranslate/languages'), 431], [stalled('/libretranslate/translate'), 408]] as const) {
      const r = await exchange(bytes);
      expect(r.status).toBe(status);
      expect(r.body).toEqual({ error: expect.any(String) });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      if (status === 408) {
        expect(r.body.error).toMatch(/not received in time/);
        expect(r.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
        expect(r.ms).toBeLessThan(TIMEOUT_MS * 3 + 500);
      }
    }
  });

  it('a request answered before its body arrived (no key) gets that one answer and the connection closes: no later 408', async () => {
    for (const [path, status] of [['/v1/translate', 401], ['/language/translate/v2', 403]] as const) {
      const r = await exchange(stalled(path, false));
      expect(r.raw.match(/HTTP\/1\.1 /g)).toHaveLength(1);
      expect(r.status).toBe(status);
      expect(r.ms).toBeLessThan(TIMEOUT_MS);
    }
    // Requests read whole keep their connection.
    const whole = await fetch(`${t.url}/v1/detect`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: '{"q":"Hallo"}' });
    expect(whole.headers.get('connection')).toBe('keep-alive');
    expect((await fetch(`${t.url}/health`)).headers.get('connection')).toBe('keep-alive');
  });

  it('a request line longer than the header limit, and headers that stall after an answered request, keep their surface', async () => {
    const longLine = await exchange(`GET /language/translate/v2?target=de&q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(longLine.status).toBe(431);
    expect(longLine.body.error.errors).toBeDefined();
    // The second request's headers never end: its surface is the connection's last one (LibreTranslate, with CORS).
    const stalledHeaders = await exchange('GET /libretranslate/languages HTTP/1.1\r\nHost: x\r\n\r\nGET /libretranslate/languages HTTP/1.1\r\nHost: x\r\n');
    expect(stalledHeaders.raw.startsWith('HTTP/1.1 200')).toBe(true);
    expect(stalledHeaders.status).toBe(408);
    expect(stalledHeaders.body).toEqual({ error: expect.any(String) });
    expect(stalledHeaders.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('a keep-alive connection answered once is not taken for its old path', async () => {
    // First request on the connection is /libretranslate/languages (answered), the second stalls on /v1.
    const r = await exchange(`GET /libretranslate/languages HTTP/1.1\r\nHost: x\r\n\r\n${stalled('/v1/translate')}`);
    expect(r.raw.startsWith('HTTP/1.1 200')).toBe(true);
    expect(r.status).toBe(408);
    expect(r.body).toEqual({ error: { code: 408, message: expect.any(String), type: 'invalid_request' } });
    expect(r.headers.get('access-control-allow-origin')).toBeUndefined();
  });
});
