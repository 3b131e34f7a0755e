// Acceptance of the scale-out: two real server processes (`node --import tsx src/cli/main.ts serve`, the
// fixture models) sharing one PostgreSQL database, keys made and revoked with the real CLI.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { coreModelsDir } from '../fixture-models.ts';
import { listening } from '../server-process.ts';
import { type FreshDatabase, freshDatabase, type OwnCluster, sql, startOwnCluster, TEST_DATABASE_URL } from './pg-helpers.ts';
import { describeNeeding } from '../tools.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURE_MODELS = coreModelsDir();
const run = promisify(execFile);
const TEXT = 'Hello world.'; // 12 characters per request

interface Server {
  child: ChildProcess;
  url: string;
}

const children: ChildProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-replicas-'));

function envFor(databaseUrl: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DRAGOMAN_PORT: '0',
    DRAGOMAN_DATA_DIR: dataDir, // unused with PostgreSQL: proves nothing lands in SQLite
    DRAGOMAN_MODELS_DIR: FIXTURE_MODELS,
    DRAGOMAN_DATABASE_URL: databaseUrl,
    DRAGOMAN_WORKERS: '1',
    DRAGOMAN_INTRA_OP_THREADS: '1',
    DRAGOMAN_CACHE_SIZE: '0',
    DRAGOMAN_LOG_LEVEL: 'warn',
    // Only /v1 is needed here; the other surfaces are other suites' business.
    DRAGOMAN_UI: 'off',
    DRAGOMAN_GOOGLE_COMPAT: 'off',
    DRAGOMAN_LIBRETRANSLATE_COMPAT: 'off',
  };
}

function serve(databaseUrl: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: ROOT,
    env: envFor(databaseUrl),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return listening(child).then(({ url }) => ({ child, url }));
}

async function dragoman(databaseUrl: string, args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    env: envFor(databaseUrl),
  });
  return stdout;
}

async function newKey(databaseUrl: string, flags: string[]): Promise<{ id: string; key: string }> {
  return JSON.parse(await dragoman(databaseUrl, ['keys', 'create', '--json', ...flags]));
}

interface Reply {
  status: number;
  body: any;
  headers: Headers;
}

async function request(base: string, key: string, path = '/v1/translate'): Promise<Reply> {
  const init: RequestInit =
    path === '/v1/translate'
      ? {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ q: TEXT, source: 'en', target: 'de' }),
        }
      : { headers: { 'x-api-key': key } };
  const res = await fetch(base + path, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.status, body, headers: res.headers };
}

async function usedChars(databaseUrl: string, keyId: string): Promise<number> {
  const rows = await sql<{ chars: number }>(databaseUrl, 'SELECT COALESCE(SUM(chars), 0)::int AS chars FROM usage WHERE key_id = $1', [
    keyId,
  ]);
  return rows[0]!.chars;
}

/** Resolves once `cond()` holds (checked every 50 ms), so a loaded machine slows the test instead of failing it. */
async function waitFor(cond: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => {
    child.once('exit', () => r());
    child.kill(signal);
  });
}

afterAll(async () => {
  await Promise.all(children.map((c) => stop(c)));
  rmSync(dataDir, { recursive: true, force: true });
});

describeNeeding('postgresql')('two replicas on one PostgreSQL', () => {
  let db: FreshDatabase;
  let a: Server;
  let b: Server;

  beforeAll(async () => {
    db = await freshDatabase();
    // Started together: both run the migrations, the advisory lock lets one apply them.
    [a, b] = await Promise.all([serve(db.url), serve(db.url)]);
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => stop(c)));
    await db.drop();
  });

  it('50 concurrent requests spread over both at the quota edge never spend more than the quota', async () => {
    const { id, key } = await newKey(db.url, ['--plan', 'pro', '--monthly-chars', String(20 * TEXT.length)]);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => request(i % 2 ? a.url : b.url, key)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 403)).toHaveLength(30);
    for (const r of replies) if (r.status === 403) expect(r.body.error.type).toBe('quota_exceeded');
    expect(await usedChars(db.url, id)).toBe(20 * TEXT.length);
  });

  it('a 10-requests-per-minute key gets exactly 10 accepted across both in one window, with Retry-After', async () => {
    const { key } = await newKey(db.url, ['--plan', 'free', '--rpm', '10']);
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => request(i % 2 ? a.url : b.url, key, '/v1/languages')));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(10);
    const limited = replies.filter((r) => r.status === 429);
    expect(limited).toHaveLength(20);
    for (const r of limited) {
      const wait = Number(r.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(60);
    }
    // (With a window per process, 20 would have passed: 10 on each replica.)
  });

  it('a key revoked with the CLI is refused by both replicas on the next request (no cache)', async () => {
    const { id, key } = await newKey(db.url, ['--plan', 'pro']);
    expect((await request(a.url, key, '/v1/usage')).status).toBe(200);
    expect((await request(b.url, key, '/v1/usage')).status).toBe(200);
    await dragoman(db.url, ['keys', 'revoke', id]);
    for (const url of [b.url, a.url]) {
      const r = await request(url, key, '/v1/usage');
      expect(r.status).toBe(401);
      expect(r.body.error.message).toMatch(/revoked/);
    }
    // A plan change is seen at once too.
    const other = await newKey(db.url, ['--plan', 'free']);
    expect((await request(a.url, other.key, '/v1/usage')).body.data.plan).toBe('free');
    await dragoman(db.url, ['keys', 'set-plan', other.id, 'pro']);
    expect((await request(b.url, other.key, '/v1/usage')).body.data.plan).toBe('pro');
  });

  it('connections killed by PostgreSQL under load: no charge lost for a 200, none counted twice', async () => {
    // No rate limit on this key: four loops for three seconds may pass pro's 300 a minute on a fast engine, and a 429
    // (not charged) is the rate limiter's business, tested above; here every answer must be 200 or 503.
    const { id, key } = await newKey(db.url, ['--plan', 'pro', '--rpm', 'unlimited']);
    const statuses: number[] = [];
    let running = true;
    const loop = async (url: string) => {
      while (running) statuses.push((await request(url, key)).status);
    };
    const load = Promise.all([loop(a.url), loop(b.url), loop(a.url), loop(b.url)]);
    let killed = 0;
    for (let round = 0; round < 10; round++) {
      await new Promise((r) => setTimeout(r, 300));
      const rows = await sql<{ ok: boolean }>(
        db.url,
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'dragoman' AND pid <> pg_backend_pid()`,
      );
      killed += rows.filter((r) => r.ok).length;
    }
    running = false;
    await load;
    expect(killed).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    const ok = statuses.filter((s) => s === 200).length;
    expect(ok).toBeGreaterThan(0);
    // Charges of requests answered 503 are cancelled within a second or two (background, once reachable).
    await new Promise((r) => setTimeout(r, 2500));
    expect((await usedChars(db.url, id)) / TEXT.length).toBe(ok);
  });

  it('SIGKILL of one replica under load loses no charge of a request that got 200', async () => {
    const { id, key } = await newKey(db.url, ['--plan', 'pro']);
    let ok = 0;
    let okOnVictim = 0;
    let failedOnKilled = 0; // requests in flight on the killed replica: charged or not, never answered 200
    const victim = await serve(db.url);
    const loop = async (url: string, n: number, onVictim: boolean) => {
      for (let i = 0; i < n; i++) {
        try {
          const r = await request(url, key);
          if (r.status === 200) {
            ok++;
            if (onVictim) okOnVictim++;
          }
        } catch {
          if (onVictim) failedOnKilled++;
          return;
        }
      }
    };
    const load = Promise.all([
      loop(victim.url, 1000, true),
      loop(victim.url, 1000, true),
      loop(a.url, 15, false),
      loop(b.url, 15, false),
    ]);
    // Kill it while it is busy: once it has answered a few requests, in the middle of the next ones.
    await waitFor(() => okOnVictim >= 4, 'the replica to be under load');
    victim.child.kill('SIGKILL');
    await load;
    const charged = (await usedChars(db.url, id)) / TEXT.length;
    expect(ok).toBeGreaterThanOrEqual(30 + 4);
    expect(charged).toBeGreaterThanOrEqual(ok);
    expect(charged).toBeLessThanOrEqual(ok + failedOnKilled);
  });
});

describeNeeding('postgresql')('database stopped and restarted under load', () => {
  let cluster: OwnCluster;
  afterEach(() => cluster?.stop());

  it('a replica started while the database is down serves /health, is not ready, and migrates once it is back', async () => {
    cluster = startOwnCluster();
    cluster.pause();
    const a = await serve(cluster.url);
    expect((await fetch(a.url + '/health')).status).toBe(200);
    const notReady = await fetch(a.url + '/ready');
    expect(notReady.status).toBe(503);
    expect((await notReady.json()).checks.database.ok).toBe(false);
    const refused = await request(a.url, 'dk_' + 'x'.repeat(32), '/v1/usage');
    expect(refused.status).toBe(503);
    expect(refused.body.error.type).toBe('server_error');
    cluster.resume();
    expect((await fetch(a.url + '/ready')).status).toBe(200);
    const { key } = await newKey(cluster.url, ['--plan', 'pro']);
    expect((await request(a.url, key)).status).toBe(200);
    await stop(a.child, 'SIGTERM');
  });

  it('503 server_error (retry is safe) while it is down, normal service after, usage consistent', async () => {
    cluster = startOwnCluster();
    const [a, b] = await Promise.all([serve(cluster.url), serve(cluster.url)]);
    const { id, key } = await newKey(cluster.url, ['--plan', 'pro']);
    const seen: Record<string, number> = {};
    const messages = new Set<string>();
    let phase: 'before' | 'down' | 'after' = 'before';
    let running = true;
    const loop = async (url: string) => {
      while (running) {
        const r = await request(url, key);
        seen[`${phase}:${r.status}`] = (seen[`${phase}:${r.status}`] ?? 0) + 1;
        if (r.status === 503) messages.add(`${r.body.error.type}: ${r.body.error.message}`);
        if (r.status !== 200) await new Promise((res) => setTimeout(res, 50));
      }
    };
    const load = Promise.all([loop(a.url), loop(b.url)]);
    await waitFor(() => (seen['before:200'] ?? 0) >= 4, 'service before the outage');
    phase = 'down';
    cluster.pause();
    await waitFor(() => (seen['down:503'] ?? 0) >= 4, '503s during the outage');
    const ready = await fetch(a.url + '/ready');
    cluster.resume();
    phase = 'after';
    await waitFor(() => (seen['after:200'] ?? 0) >= 4, 'service after the outage');
    const readyAfter = await fetch(a.url + '/ready');
    running = false;
    await load;
    await Promise.all([stop(a.child, 'SIGTERM'), stop(b.child, 'SIGTERM')]);

    expect(seen['before:200']).toBeGreaterThan(0);
    expect(seen['down:503']).toBeGreaterThan(0);
    expect(seen['after:200']).toBeGreaterThan(0);
    // Nothing but 200 and 503 (no 500: the process did not fall over).
    expect(Object.keys(seen).filter((k) => !/:(200|503)$/.test(k))).toEqual([]);
    for (const m of messages) expect(m).toMatch(/^server_error: .*retry.*safe/i);
    // /ready reports the database while it is down, and is green again after.
    expect(ready.status).toBe(503);
    expect((await ready.json()).checks.database.ok).toBe(false);
    expect(readyAfter.status).toBe(200);
    // Usage: exactly the characters of the requests that got 200. Requests answered while the database was
    // coming back may have been answered 503 after their charge committed; those are cancelled in the
    // background (every second), and SIGTERM's close() flushes what is still pending.
    const ok200 = (seen['before:200'] ?? 0) + (seen['down:200'] ?? 0) + (seen['after:200'] ?? 0);
    expect((await usedChars(cluster.url, id)) / TEXT.length).toBe(ok200);
  });
});
