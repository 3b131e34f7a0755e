// /health, /ready, /metrics and /docs on the real app (fixture models, real SQLite in a temp dir, port 0), plus
// the JSON log lines: what they carry, and what they never carry.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { startApp, type RunningApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config/env.ts';
import { loggerOptions } from '../../src/observability/logger.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');
const TOKEN = 'metrics-token-for-tests';
const TEXT = 'A man is riding a red bicycle.';

interface Started {
  app: RunningApp;
  accounts: Accounts;
  logs: string[];
  dataDir: string;
  clock: ManualClock;
}

async function start(env: Record<string, string>): Promise<Started> {
  const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-ops-'));
  // One model is enough here (and loads fast on a shared 2-core machine).
  const models = join(dataDir, 'models');
  mkdirSync(models);
  symlinkSync(join(FIXTURES, 'tiny-marian-en-de'), join(models, 'tiny-marian-en-de'));
  const config = loadConfig({
    DRAGOMAN_PORT: '0',
    DRAGOMAN_DATA_DIR: dataDir,
    DRAGOMAN_MODELS_DIR: models,
    DRAGOMAN_PRECISION: 'fp32',
    DRAGOMAN_WORKERS: '1',
    DRAGOMAN_INTRA_OP_THREADS: '1',
    DRAGOMAN_LOG_LEVEL: 'info',
    ...env,
  });
  const logs: string[] = [];
  const clock = new ManualClock();
  const app = await startApp(config, { clock, logger: { ...(loggerOptions(config) as object), stream: { write: (l: string) => void logs.push(l) } } });
  return { app, accounts: new Accounts(app.store, clock), logs, dataDir, clock };
}

async function stop(s: Started | undefined): Promise<void> {
  if (!s) return;
  await s.app.close();
  rmSync(s.dataDir, { recursive: true, force: true });
}

/** The value of one sample line of the Prometheus text, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('ops routes with models and a metrics token', () => {
  let s: Started;
  let key: { id: string; secret: string };
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${s.app.url}${path}`, { headers });
  const translate = (secret: string, body: unknown) =>
    fetch(`${s.app.url}/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': secret },
      body: JSON.stringify(body),
    });
  const metrics = async () => (await get('/metrics', { authorization: `Bearer ${TOKEN}` })).text();

  beforeAll(async () => {
    s = await start({ DRAGOMAN_METRICS_TOKEN: TOKEN });
    const created = await s.accounts.createKey({ plan: 'pro' });
    key = { id: created.key.id, secret: created.secret };
  });
  afterAll(() => stop(s));

  it('GET /health needs no key and lists the loaded models', async () => {
    const res = await get('/health');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; modelsLoaded: number; models: { name: string; status: string }[] };
    expect(body.status).toBe('ok');
    expect(body).toEqual({ status: 'ok', modelsInstalled: 1, modelsLoaded: 1, models: [{ name: 'tiny-marian-en-de', status: 'ok', loaded: true }] });
    expect(JSON.stringify(body)).not.toContain(FIXTURES);
  });

  it('GET /ready is 200 when models, database and workers are all fine', async () => {
    const res = await get('/ready');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ready',
      checks: { models: { ok: true, loaded: 1 }, database: { ok: true }, workers: { ok: true, alive: 1, configured: 1 } },
    });
  });

  it('GET /metrics wants the bearer token', async () => {
    const none = await get('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await none.json()) as { error: { type: string } }).error.type).toBe('authentication_error');
    expect((await get('/metrics', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await get('/metrics', { authorization: TOKEN })).status).toBe(401);
    const ok = await get('/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('GET /metrics reports the event loop lag since the previous scrape (p50, p99, max)', async () => {
    // A scrape, then at once hold the loop of this process (the server's) for 500 ms: the next scrape's max must
    // show at least that, though no timer tick ran between the scrape's reset and the stall.
    await metrics();
    const until = performance.now() + 500;
    while (performance.now() < until);
    const text = await metrics();
    const max = Number(/^dragoman_event_loop_lag_seconds\{quantile="max"\} (\S+)$/m.exec(text)?.[1]);
    expect(max).toBeGreaterThanOrEqual(0.45);
    expect(text).toMatch(/^dragoman_event_loop_lag_seconds\{quantile="0\.99"\} \d/m);
    // Reset at each scrape: a quiet period after it no longer shows the stall.
    await new Promise((r) => setTimeout(r, 300));
    const after = Number(/^dragoman_event_loop_lag_seconds\{quantile="max"\} (\S+)$/m.exec(await metrics())?.[1]);
    expect(after).toBeLessThan(max);
  });

  it('throttles wrong /metrics tokens per address like wrong API keys (20 a minute), then lets the right one in', async () => {
    s.clock.advance(61_000); // the wrong tokens of the test above are out of the window
    for (let i = 0; i < 20; i++) expect((await get('/metrics', { authorization: `Bearer guess-${i}` })).status).toBe(401);
    const blocked = await get('/metrics', { authorization: `Bearer ${TOKEN}` });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    s.clock.advance(60_000);
    expect((await get('/metrics', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('counters move after a translation: requests, latency, characters by direction, route, batches', async () => {
    const before = await metrics();
    const res = await translate(key.secret, { q: [TEXT, 'Two dogs play in the snow.'], source: 'en', target: 'de' });
    expect(res.status).toBe(200);
    const after = await metrics();
    const chars = [...TEXT].length + [...'Two dogs play in the snow.'].length;
    const delta = (series: string) => (sample(after, series) ?? 0) - (sample(before, series) ?? 0);
    expect(delta('dragoman_http_requests_total{method="POST",route="/v1/translate",status="200"}')).toBe(1);
    expect(delta('dragoman_http_request_duration_seconds_count{method="POST",route="/v1/translate"}')).toBe(1);
    expect(delta('dragoman_translated_characters_total{source="en",target="de"}')).toBe(chars);
    expect(delta('dragoman_translation_routes_total{route="tiny-marian-en-de"}')).toBe(1);
    expect(delta('dragoman_batch_rows_count{model="tiny-marian-en-de"}')).toBeGreaterThanOrEqual(1);
    expect(delta('dragoman_batch_rows_sum{model="tiny-marian-en-de"}')).toBe(2);
    expect(sample(after, 'dragoman_queue_depth')).toBe(0);
    // A two-sentence request is interactive work.
    expect(delta('dragoman_queue_wait_seconds_count{priority="interactive"}')).toBeGreaterThanOrEqual(1);
    expect(delta('dragoman_queue_wait_seconds_count{priority="bulk"}')).toBe(0);
    expect(sample(after, 'dragoman_queue_sentences{priority="interactive"}')).toBe(0);
    expect(sample(after, 'dragoman_queue_sentences{priority="bulk"}')).toBe(0);
    expect(sample(after, 'dragoman_workers{state="alive"}')).toBe(1);
    expect(sample(after, 'dragoman_worker_restarts_total')).toBe(0);
    expect(sample(after, 'dragoman_models{status="ok"}')).toBe(1);
    expect(sample(after, 'dragoman_model_load_seconds{model="tiny-marian-en-de"}')).toBeGreaterThan(0);
    expect(after).toMatch(/^process_cpu_seconds_total /m);
    // Never a key, a key id or text in a label.
    for (const secret of [key.secret, key.id, TEXT, 'Two dogs']) expect(after).not.toContain(secret);
  });

  it('a request over DRAGOMAN_BULK_CHARACTERS (2000) is bulk work, in the per-priority wait', async () => {
    const before = await metrics();
    const q = Array.from({ length: 50 }, (_, i) => `Sentence number ${i} is about a dog in the park.`);
    expect(q.join('').length).toBeGreaterThan(2000);
    const res = await translate(key.secret, { q, source: 'en', target: 'de' });
    expect(res.status).toBe(200);
    const after = await metrics();
    const delta = (series: string) => (sample(after, series) ?? 0) - (sample(before, series) ?? 0);
    expect(delta('dragoman_queue_wait_seconds_count{priority="bulk"}')).toBeGreaterThanOrEqual(1);
    expect(delta('dragoman_queue_wait_seconds_count{priority="interactive"}')).toBe(0);
  });

  it('detected source is labelled auto; made-up codes never become labels', async () => {
    // A sentence long enough that detection is not the question here (this test is about the labels).
    const english = 'The weather is nice today and we are going to the park.';
    const before = await metrics();
    expect((await translate(key.secret, { q: english, target: 'de' })).status).toBe(200);
    expect((await translate(key.secret, { q: TEXT, target: 'zz-not-a-language' })).status).toBe(400);
    const after = await metrics();
    expect((sample(after, 'dragoman_translated_characters_total{source="auto",target="de"}') ?? 0) -
      (sample(before, 'dragoman_translated_characters_total{source="auto",target="de"}') ?? 0)).toBe([...english].length);
    expect(after).not.toContain('zz-not-a-language');
    expect(sample(after, 'dragoman_http_requests_total{method="POST",route="/v1/translate",status="400"}')).toBe(1);
  });

  it('counts quota and rate-limit refusals', async () => {
    const poor = await s.accounts.createKey({ plan: 'free', monthlyChars: 5 });
    expect((await translate(poor.secret, { q: TEXT, source: 'en', target: 'de' })).status).toBe(403);
    const hasty = await s.accounts.createKey({ plan: 'free', rpm: 1 });
    expect((await translate(hasty.secret, { q: 'Hi.', source: 'en', target: 'de' })).status).toBe(200);
    expect((await translate(hasty.secret, { q: 'Hi.', source: 'en', target: 'de' })).status).toBe(429);
    const text = await metrics();
    expect(sample(text, 'dragoman_quota_refusals_total{route="/v1/translate"}')).toBe(1);
    expect(sample(text, 'dragoman_rate_limit_refusals_total{route="/v1/translate"}')).toBe(1);
  });

  it('unmatched URLs are one label, not one per URL', async () => {
    await get('/no/such/path/12345');
    const text = await metrics();
    expect(text).not.toContain('12345');
    expect(sample(text, 'dragoman_http_requests_total{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
  });

  it('serves the OpenAPI document of the API at /docs/json and Swagger UI from local assets at /docs', async () => {
    const doc = (await (await get('/docs/json')).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: object; required: string[] } }> } }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.openapi).toMatch(/^3\./);
    // The API's surfaces only (each one's routes: test/ops/openapi-surfaces.test.ts), not the ops routes.
    expect(Object.keys(doc.paths).filter((p) => !/^\/(v1|v2|v3|language\/translate\/v2|libretranslate)(\/|$)/.test(p))).toEqual([]);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/v1/translate', '/v1/detect', '/v1/languages']));
    const body = doc.paths['/v1/translate']!.post!.requestBody!.content['application/json']!.schema;
    expect(Object.keys(body.properties)).toEqual(['q', 'target', 'source', 'format', 'glossary', 'memory', 'memoryThreshold', 'matches', 'memoryUpdate', 'model', 'context', 'instructions', 'formality']);
    expect(body.required).toEqual(['q', 'target']);
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(((body.properties as Record<string, { oneOf: { type: string }[] }>).q!).oneOf.map((t) => t.type)).toEqual(['string', 'array']);
    const signup = doc.paths['/v1/signup']!.post! as unknown as { security?: unknown[]; responses: Record<string, unknown> };
    expect(signup.security).toEqual([]); // the one call without a key
    expect(Object.keys(signup.responses)).not.toContain('401');

    const page = await get('/docs/');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('swagger-ui');
    // Every script and stylesheet is served by us, none from a CDN.
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => /^(https?:)?\/\//.test(r))).toEqual([]);
    const script = refs.find((r) => r.endsWith('swagger-ui-bundle.js'))!;
    expect((await get(new URL(script, `${s.app.url}/docs/`).pathname)).status).toBe(200);
  });

  it('logs one JSON line per request with id, route, status, latency and key id — never the key or the text', async () => {
    s.logs.length = 0;
    const res = await translate(key.secret, { q: TEXT, source: 'en', target: 'de' });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    const lines = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const done = lines.find((l) => l.msg === 'request completed' && l.reqId === requestId);
    expect(done).toMatchObject({
      level: 30,
      reqId: requestId,
      res: { statusCode: 200, route: '/v1/translate', keyId: key.id },
    });
    expect(typeof done!.responseTime).toBe('number');
    const all = s.logs.join('\n');
    expect(all).not.toContain(key.secret);
    expect(all).not.toContain(TEXT);
    expect(all.toLowerCase()).not.toContain('x-api-key');
  });

  it('a key sent where it does not belong (a path, a request id) is not logged either', async () => {
    s.logs.length = 0;
    const lost = await fetch(`${s.app.url}/v1/translate/${key.secret}`, { headers: { 'x-request-id': key.secret } });
    expect(lost.status).toBe(404);
    expect(lost.headers.get('x-request-id')).not.toBe(key.secret);
    const lines = s.logs.map((l) => JSON.parse(l) as { req?: { path?: string }; reqId?: string });
    expect(lines.find((l) => l.req?.path)?.req?.path).toBe('/v1/translate/dk_[redacted]');
    expect(s.logs.join('\n')).not.toContain(key.secret.slice(3));
    // Percent-encoded, as a URL may carry it: the path is logged before decoding.
    s.logs.length = 0;
    await fetch(`${s.app.url}/zz/dk%5F${key.secret.slice(3)}`);
    await fetch(`${s.app.url}/zz/%64%6B_${key.secret.slice(3)}`);
    expect(s.logs.join('\n')).not.toContain(key.secret.slice(3));
  });

  it('counts a worker that died and was replaced; /ready is 200 again once it is back', async () => {
    (s.app.engine as unknown as { crashWorkerForTest(): void }).crashWorkerForTest();
    let ready = 0;
    for (let i = 0; i < 600 && ready !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const text = await metrics();
      if (sample(text, 'dragoman_worker_restarts_total') === 1) ready = (await get('/ready')).status;
    }
    expect(ready).toBe(200);
    expect(sample(await metrics(), 'dragoman_workers{state="alive"}')).toBe(1);
  });

  it('/ready turns 503 when the database stops accepting writes', async () => {
    await s.app.storage.close(); // the connection every store writes through
    const res = await get('/ready');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; checks: { database: { ok: boolean } } };
    expect(body.status).toBe('not ready');
    expect(body.checks.database.ok).toBe(false);
  });
});

describe('ops routes with no model and no metrics token', () => {
  let s: Started;
  let emptyModels: string;
  beforeAll(async () => {
    emptyModels = mkdtempSync(join(tmpdir(), 'dragoman-ops-empty-'));
    s = await start({ DRAGOMAN_MODELS_DIR: emptyModels });
  });
  afterAll(async () => {
    await stop(s);
    rmSync(emptyModels, { recursive: true, force: true });
  });

  it('/health is 200, /ready is 503 and says how to install a model, /metrics does not exist', async () => {
    const health = await fetch(`${s.app.url}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { modelsLoaded: number }).modelsLoaded).toBe(0);
    const ready = await fetch(`${s.app.url}/ready`);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { checks: { models: { ok: boolean; detail: string }; database: { ok: boolean } } };
    expect(body.checks.models.ok).toBe(false);
    expect(body.checks.models.detail).toMatch(/dragoman models pull/);
    expect(body.checks.database.ok).toBe(true);
    expect((await fetch(`${s.app.url}/metrics`)).status).toBe(404);
    expect((await fetch(`${s.app.url}/metrics`, { headers: { authorization: 'Bearer anything' } })).status).toBe(404);
  });
});
