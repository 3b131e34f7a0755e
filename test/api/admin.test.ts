// The admin surface and the per-day usage ledger, black-box on the real app (fixture models, real database: SQLite,
// and PostgreSQL in the api-on-postgres project): the report adds up to what /v1/usage says was charged, over
// requests that succeed and requests that fail (refunded); /admin is 404 without DRAGOMAN_ADMIN_TOKEN and 401
// without the token; key changes made through it and through the CLI land in the audit log, without secrets.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelFolder } from '../../src/engine/model/model-folder.ts';
import { modelCost } from '../../src/engine/translate/resident-models.ts';
import { runCli } from '../cli/in-process.ts';
import { expectErrorShape, startTestApp, type TestApp } from './helpers.ts';

const TOKEN = 'admin-token-for-tests-0123456789';
const DAY = 86_400_000;
const auth = { authorization: `Bearer ${TOKEN}` };

describe('admin surface and usage reports', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ DRAGOMAN_ADMIN_TOKEN: TOKEN });
  }, 120_000);
  afterAll(async () => t?.close());

  it('is refused without the token (401) and with a wrong one, and answers with it', async () => {
    expectErrorShape(await t.call('GET', '/admin/keys'), 401, 'authentication_error');
    expectErrorShape(await t.call('GET', '/admin/usage', { headers: { authorization: 'Bearer wrong-token-wrong-token-wrong' } }), 401, 'authentication_error');
    const ok = await t.call('GET', '/admin/keys', { headers: auth });
    expect(ok.status).toBe(200);
    expect(Array.isArray(ok.body.data)).toBe(true);
    const page = await fetch(`${t.url}/admin`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('reports per key per day exactly what /v1/usage says was charged, over several days', async () => {
    const a = await t.key({ plan: 'pro' });
    const b = await t.key({ plan: 'basic' });
    const texts = ['Hello world.', 'The weather is nice today.', 'Good morning, how are you?'];
    const days: string[] = [];
    for (let d = 0; d < 3; d++) {
      days.push(new Date(t.clock.now()).toISOString().slice(0, 10));
      for (const q of texts.slice(0, d + 1)) {
        expect((await t.call('POST', '/v1/translate', { key: a.secret, body: { q, source: 'en', target: 'de' } })).status).toBe(200);
      }
      expect((await t.call('POST', '/v1/translate', { key: b.secret, body: { q: [texts[0], texts[1]], source: 'en', target: 'de' } })).status).toBe(200);
      // A refused request (a target no model reaches) costs nothing: neither count may hold it.
      const failed = await t.call('POST', '/v1/translate', { key: a.secret, body: { q: 'Hello', source: 'en', target: 'xx' } });
      expect(failed.status).toBeGreaterThanOrEqual(400);
      t.clock.advance(DAY);
    }
    t.clock.advance(-DAY); // back on the last day: /v1/usage names the month of the requests
    const from = days[0]!;
    const to = days[2]!;
    const report = await t.call('GET', `/admin/usage?from=${from}&to=${to}`, { headers: auth });
    expect(report.status).toBe(200);
    for (const key of [a, b]) {
      const usage = (await t.call('GET', '/v1/usage', { key: key.secret })).body.data;
      const rows = report.body.data.rows.filter((r: { keyId: string }) => r.keyId === key.id);
      const month = rows.filter((r: { day: string }) => r.day.startsWith(usage.period));
      expect(month.reduce((s: number, r: { characters: number }) => s + r.characters, 0)).toBe(usage.charactersUsed);
      expect(month.reduce((s: number, r: { requests: number }) => s + r.requests, 0)).toBe(usage.requests);
      expect(usage.charactersUsed).toBeGreaterThan(0);
    }
    const aDays = report.body.data.rows.filter((r: { keyId: string }) => r.keyId === a.id).map((r: { day: string; requests: number }) => [r.day, r.requests]);
    expect(aDays).toEqual([[days[0], 1], [days[1], 2], [days[2], 3]]);
    const chars = texts.map((s) => [...s].length);
    expect(report.body.data.rows.find((r: { keyId: string; day: string }) => r.keyId === a.id && r.day === days[1]).characters).toBe(chars[0]! + chars[1]!);

    // The plan filter and CSV.
    const basic = await t.call('GET', `/admin/usage?from=${from}&to=${to}&plan=basic&format=csv`, { headers: auth });
    const lines = String(basic.body).trim().split('\n');
    expect(lines[0]).toBe('day,key_id,plan,characters,requests,document_characters,memory_characters');
    expect(lines.slice(1).every((l) => l.split(',')[1] === b.id)).toBe(true);
    expect(lines).toHaveLength(4);
    expectErrorShape(await t.call('GET', '/admin/usage?from=2026-02-30&to=2026-03-01', { headers: auth }), 400, 'invalid_request');

    // The CLI's report is the same rows, and a signed one verifies with the public key and fails once altered.
    const env = { DRAGOMAN_DATA_DIR: t.dataDir, ...(t.app.server.dragoman.config.databaseUrl ? { DRAGOMAN_DATABASE_URL: t.app.server.dragoman.config.databaseUrl } : {}) };
    const cli = await runCli(env, ['usage', 'report', '--from', from, '--to', to, '--format', 'json']);
    expect(cli.code, cli.err).toBe(0);
    expect(JSON.parse(cli.out).rows).toEqual(report.body.data.rows);
    const dir = mkdtempSync(join(tmpdir(), 'dragoman-sign-'));
    const pair = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'private.pem'), pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(join(dir, 'public.pem'), pair.publicKey.export({ type: 'spki', format: 'pem' }));
    const signed = await runCli(env, ['usage', 'report', '--from', from, '--to', to, '--key', a.id, '--sign', join(dir, 'private.pem')]);
    expect(signed.code, signed.err).toBe(0);
    writeFileSync(join(dir, 'report.json'), signed.out);
    const good = await runCli(env, ['usage', 'verify', join(dir, 'report.json'), '--public-key', join(dir, 'public.pem')]);
    expect(good.code, good.err).toBe(0);
    const doc = JSON.parse(signed.out);
    doc.report = doc.report.replace(/"characters": (\d+)/, (_: string, n: string) => `"characters": ${Number(n) - 1}`);
    writeFileSync(join(dir, 'altered.json'), JSON.stringify(doc));
    const bad = await runCli(env, ['usage', 'verify', join(dir, 'altered.json'), '--public-key', join(dir, 'public.pem')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('does not match');
  }, 120_000);

  it('creates, changes and revokes keys, and the audit log says who did what without the secret', async () => {
    const made = await t.call('POST', '/admin/keys', { headers: auth, body: { plan: 'free', name: 'from admin', monthlyChars: 1000 } });
    expect(made.status).toBe(201);
    const { id, secret } = made.body.data;
    expect((await t.call('POST', '/v1/translate', { key: secret, body: { q: 'Hello world.', source: 'en', target: 'de' } })).status).toBe(200);
    const changed = await t.call('PATCH', `/admin/keys/${id}`, { headers: auth, body: { plan: 'pro', rpm: 'plan' } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.plan).toBe('pro');
    expectErrorShape(await t.call('PATCH', `/admin/keys/${id}`, { headers: auth, body: { plan: 'gold' } }), 400, 'invalid_request');
    expect((await t.call('DELETE', `/admin/keys/${id}`, { headers: auth })).status).toBe(200);
    expectErrorShape(await t.call('POST', '/v1/translate', { key: secret, body: { q: 'Hello', source: 'en', target: 'de' } }), 401, 'authentication_error');
    expectErrorShape(await t.call('DELETE', `/admin/keys/${id}`, { headers: auth }), 409, 'invalid_request');

    const env = { DRAGOMAN_DATA_DIR: t.dataDir, USER: 'operator1', ...(t.app.server.dragoman.config.databaseUrl ? { DRAGOMAN_DATABASE_URL: t.app.server.dragoman.config.databaseUrl } : {}) };
    const created = await runCli(env, ['keys', 'create', '--plan', 'basic', '--json']);
    expect(created.code, created.err).toBe(0);
    const cliKey = JSON.parse(created.out) as { id: string; key: string };
    expect((await runCli(env, ['keys', 'set-limits', cliKey.id, '--rpm', '5'])).code).toBe(0);
    expect((await runCli(env, ['keys', 'revoke', cliKey.id])).code).toBe(0);

    // A key from the public signup (the web page's "Get a free key") is in the log too, as `signup`.
    const signedUp = await t.call('POST', '/v1/signup', { body: { name: 'from signup', email: 'someone@example.org' } });
    expect(signedUp.status).toBe(201);
    const signup = signedUp.body.data as { id: string; key: string };

    const log = await runCli(env, ['audit', '--format', 'json']);
    expect(log.code, log.err).toBe(0);
    expect(log.out).not.toContain(secret);
    expect(log.out).not.toContain(cliKey.key);
    expect(log.out).not.toContain(signup.key);
    const all = JSON.parse(log.out) as { actor: string; action: string; keyId: string; detail: Record<string, unknown> }[];
    const entries = all.map((e) => [e.actor, e.action, e.keyId]);
    expect(entries).toEqual(expect.arrayContaining([
      ['admin', 'key.create', id], ['admin', 'key.set-plan', id], ['admin', 'key.set-limits', id], ['admin', 'key.revoke', id],
      ['cli:operator1', 'key.create', cliKey.id], ['cli:operator1', 'key.set-limits', cliKey.id], ['cli:operator1', 'key.revoke', cliKey.id],
      ['signup', 'key.create', signup.id],
    ]));
    expect(all.find((e) => e.keyId === signup.id)!.detail).toEqual({ plan: 'free', name: 'from signup' });
    const text = await runCli(env, ['audit']);
    expect(text.out.split('\n').find((l) => l.includes(signup.id))).toMatch(/\bsignup\s+key\.create\b/);
    const viaApi = await t.call('GET', '/admin/audit-log', { headers: auth });
    expect(viaApi.body.data.map((e: { action: string; keyId: string }) => `${e.action} ${e.keyId}`)).toContain(`key.revoke ${cliKey.id}`);
    expect(JSON.stringify(viaApi.body)).not.toContain(secret);
  }, 120_000);

  it('lists models as /health does, with the memory each takes in the budget and the requests each served, and document jobs', async () => {
    type AdminModel = { name: string; status: string; loaded: boolean; memoryBytes: number; requests: number };
    const read = async () => (await t.call('GET', '/admin/models', { headers: auth })).body.data as { models: AdminModel[]; memoryBytes: number };
    const before = await read();
    const health = await t.call('GET', '/health');
    expect(before.models.map((m) => [m.name, m.status, m.loaded]))
      .toEqual(health.body.models.map((m: { name: string; status: string; loaded: boolean }) => [m.name, m.status, m.loaded]));
    // Memory: the engine's estimate of each loaded model (what DRAGOMAN_MODEL_MEMORY counts), from its files.
    const { config } = t.app.server.dragoman;
    for (const m of before.models) {
      const folder = await readModelFolder(join(config.modelsDir, m.name), config.precision);
      expect(m.memoryBytes, m.name).toBe(m.loaded ? modelCost(folder, t.app.engine.stats().workers) : 0);
    }
    expect(before.memoryBytes).toBe(before.models.reduce((sum, m) => sum + m.memoryBytes, 0));
    expect(before.memoryBytes).toBeGreaterThan(0);

    // Requests: each one routed through a model counts once for it; a pivot counts for both of its models.
    const key = await t.key({ plan: 'pro' });
    for (const q of ['Guten Morgen.', 'Das Haus ist klein.', 'Wie geht es dir?']) {
      expect((await t.call('POST', '/v1/translate', { key: key.secret, body: { q, source: 'de', target: 'en' } })).status).toBe(200);
    }
    expect((await t.call('POST', '/v1/translate', { key: key.secret, body: { q: 'Hello.', source: 'en', target: 'de' } })).status).toBe(200);
    const after = await read();
    const delta = Object.fromEntries(after.models.map((m) => [m.name, m.requests - before.models.find((b) => b.name === m.name)!.requests]));
    expect(delta).toEqual({ 'tiny-marian-de-en': 3, 'tiny-marian-en-de': 1, 'tiny-nllb': 0 });

    const jobs = await t.call('GET', '/admin/jobs', { headers: auth });
    expect(jobs.status).toBe(200);
    expect(Array.isArray(jobs.body.data)).toBe(true);
  });
});

describe('without DRAGOMAN_ADMIN_TOKEN', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  }, 120_000);
  afterAll(async () => t?.close());

  it('has no admin surface: 404 with or without a token', async () => {
    expectErrorShape(await t.call('GET', '/admin/keys', { headers: auth }), 404, 'invalid_request');
    expectErrorShape(await t.call('GET', '/admin/usage'), 404, 'invalid_request');
    expect((await fetch(`${t.url}/admin`)).status).toBe(404);
  });
});
