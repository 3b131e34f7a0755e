// No single request may stall the server. Hostile bodies at the size limits against the real server (fixture
// models, real SQLite), each while a prober asks GET /health back to back, with the bounds the requirement states:
// form and multipart bodies of 20,000-100,000 fields answered within 1 s, 100,000 characters of HTML within 10 s,
// and /health under 100 ms meanwhile. The 100 ms holds for the 90th percentile of the probes; a loaded 2-core CI
// machine stalls even an idle process for a few hundred milliseconds now and then, so the slowest single probe
// is held to 1 s instead (a parser or planner that holds the event loop stalls /health for 10-400 s).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers.ts';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ DRAGOMAN_KEYLESS_RPM: 'unlimited' });
  key = (await t.key({ plan: 'enterprise' })).secret;
});
afterAll(async () => t?.close());

const HEALTH_P90_MS = 100;
const HEALTH_MAX_MS = 1000;

function percentile(xs: number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `work` while GET /health is asked back to back (10 ms apart); the latency of each /health. */
async function whileProbing<T>(work: () => Promise<T>): Promise<{ result: T; health: number[] }> {
  let running = true;
  const health: number[] = [];
  const prober = (async () => {
    while (running) {
      const t0 = performance.now();
      const res = await fetch(`${t.url}/health`);
      await res.text();
      health.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  try {
    return { result: await work(), health };
  } finally {
    running = false;
    await prober; // the last probe, still waiting when the work ended, counts too
  }
}

function expectHealthy(health: number[]): void {
  expect(health.length).toBeGreaterThanOrEqual(5);
  const summary = `p90 ${percentile(health, 90).toFixed(0)} ms, max ${Math.max(...health).toFixed(0)} ms over ${health.length} probes`;
  expect(percentile(health, 90), summary).toBeLessThan(HEALTH_P90_MS);
  expect(Math.max(...health), summary).toBeLessThan(HEALTH_MAX_MS);
}

const BOUNDARY = 'hostileboundary';
const multipart = (parts: number) =>
  Array.from({ length: parts }, () => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="q"\r\n\r\na\r\n`).join('') + `--${BOUNDARY}--\r\n`;
const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

interface Hostile {
  name: string;
  path: string;
  keyed: boolean;
  type: string;
  body: string;
}

const FORMS: Hostile[] = [
  { name: 'LibreTranslate form, 20,000 fields, no key', path: '/libretranslate/translate', keyed: false, type: FORM, body: 'q=a&'.repeat(20_000) + 'target=de' },
  { name: 'LibreTranslate form, 100,000 fields, no key', path: '/libretranslate/translate', keyed: false, type: FORM, body: 'q=a&'.repeat(100_000) + 'target=de' },
  { name: 'LibreTranslate /detect form, 20,000 fields, no key', path: '/libretranslate/detect', keyed: false, type: FORM, body: 'q=a&'.repeat(20_000) },
  { name: 'LibreTranslate multipart, 12,000 parts, no key', path: '/libretranslate/translate', keyed: false, type: MULTIPART, body: multipart(12_000) },
  { name: 'Google form, 20,000 fields', path: '/language/translate/v2', keyed: true, type: FORM, body: 'q=a&'.repeat(20_000) + 'target=de' },
  { name: 'Google form, 100,000 fields', path: '/language/translate/v2', keyed: true, type: FORM, body: 'q=a&'.repeat(100_000) + 'target=de' },
  { name: 'Google multipart, 12,000 parts', path: '/language/translate/v2', keyed: true, type: MULTIPART, body: multipart(12_000) },
];

describe('form and multipart bodies at the limits', () => {
  for (const h of FORMS) {
    it(`${h.name}: refused within 1 s, each time, with /health answering meanwhile`, async () => {
      const headers = { 'content-type': h.type, ...(h.keyed ? { 'x-api-key': key } : {}) };
      const { result: answers, health } = await whileProbing(async () => {
        const out: { status: number; ms: number; text: string }[] = [];
        const until = performance.now() + 1500;
        while (performance.now() < until) {
          const t0 = performance.now();
          const res = await fetch(`${t.url}${h.path}`, { method: 'POST', headers, body: h.body });
          out.push({ status: res.status, text: await res.text(), ms: performance.now() - t0 });
        }
        return out;
      });
      for (const a of answers) {
        expect(a.ms, a.text).toBeLessThan(1000);
        // Refused for what it is: too many strings (or, for Google, a content type it never takes).
        expect(a.status).toBe(h.type === MULTIPART && h.keyed ? 415 : 400);
        if (a.status === 400) expect(a.text).toMatch(/Too many strings in 'q'/);
      }
      expectHealthy(health);
    });
  }
});

describe('100,000 characters of HTML', () => {
  it('<a>a x 25,000 (format=html): answered within 10 s, with /health answering meanwhile', async () => {
    const q = '<a>a'.repeat(25_000);
    const { result, health } = await whileProbing(async () => {
      const t0 = performance.now();
      const res = await fetch(`${t.url}/v1/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ q, source: 'en', target: 'de', format: 'html' }),
      });
      return { status: res.status, body: (await res.json()) as { data: { translations: { translatedText: string }[] } }, ms: performance.now() - t0 };
    });
    expect(result.status).toBe(200);
    // About 2 s on a 2-core machine (npm run bench:hostile); the planning and alignment alone once took 30 s.
    expect(result.ms).toBeLessThan(10_000);
    // Every tag came back.
    expect(result.body.data.translations[0]!.translatedText.split('<a>')).toHaveLength(25_001);
    expectHealthy(health);
  });
});
