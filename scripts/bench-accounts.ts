// npm run bench:accounts — what metering costs one request, SQLite and PostgreSQL side by side: the exact
// calls the gate makes for a request that is let in (authenticate = key by hash, limits, rolling-window hit,
// quota charge), timed per request. PostgreSQL: DRAGOMAN_TEST_DATABASE_URL if set, else a throwaway cluster
// started with scripts/pg-test-cluster.sh (needs Debian's postgresql package). Prints a table.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Accounts } from '../src/accounts/accounts.ts';
import { systemClock } from '../src/accounts/clock.ts';
import { Gate } from '../src/accounts/gate.ts';
import { defaultPlanLimits } from '../src/accounts/plans.ts';
import { PgAccountStore } from '../src/accounts/postgres/store.ts';
import { SqliteAccountStore } from '../src/accounts/sqlite/store.ts';
import type { AccountStore } from '../src/accounts/store.ts';
import { openPostgres, openSqlite } from '../src/storage/index.ts';

const REQUESTS = Number(process.argv[2] ?? 3000);
const KEYS = 50;
const CONCURRENCY = [1, 16];
const CLUSTER = fileURLToPath(new URL('./pg-test-cluster.sh', import.meta.url));

interface Row {
  backend: string;
  concurrency: number;
  p50: number;
  p99: number;
  perSecond: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function measure(backend: string, store: AccountStore): Promise<Row[]> {
  const accounts = new Accounts(store, systemClock);
  const gate = new Gate(accounts);
  const secrets: string[] = [];
  for (let i = 0; i < KEYS; i++) {
    // pro plan with a window large enough that no request is refused: every request pays the full path.
    secrets.push((await accounts.createKey({ plan: 'pro', rpm: 1_000_000, monthlyChars: null })).secret);
  }
  const oneRequest = async (i: number) => {
    const t = process.hrtime.bigint();
    const admission = await gate.admit(secrets[i % KEYS], '127.0.0.1');
    await gate.charge(admission, 100);
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  for (let i = 0; i < 200; i++) await oneRequest(i); // warm-up: prepared plans, pool connections
  // Where the time goes, one call at a time (the same four calls the gate makes).
  const keys = await store.listKeys();
  const steps: Record<string, number[]> = { 'key by hash': [], limits: [], 'rate-limit hit': [], charge: [] };
  const time = async (step: string, fn: () => Promise<unknown>) => {
    const t = process.hrtime.bigint();
    await fn();
    steps[step]!.push(Number(process.hrtime.bigint() - t) / 1e6);
  };
  for (let i = 0; i < Math.min(REQUESTS, 1000); i++) {
    const key = keys[i % KEYS]!;
    await time('key by hash', () => store.findKeyByHash(`none-${i}`));
    await time('limits', () => store.limitsFor(key.id));
    await time('rate-limit hit', () => store.hitRateLimit(key.id, 1_000_000, Date.now()));
    await time('charge', () => store.charge(key.id, '2026-01', 100));
  }
  for (const [step, xs] of Object.entries(steps)) {
    xs.sort((a, b) => a - b);
    breakdown.push({ backend, step, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) });
  }
  const rows: Row[] = [];
  for (const concurrency of CONCURRENCY) {
    const times: number[] = [];
    let next = 0;
    const start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < REQUESTS) times.push(await oneRequest(next++));
      }),
    );
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    times.sort((a, b) => a - b);
    rows.push({ backend, concurrency, p50: quantile(times, 0.5), p99: quantile(times, 0.99), perSecond: REQUESTS / seconds });
  }
  return rows;
}

async function withPostgres<T>(fn: (url: string) => Promise<T>): Promise<T> {
  let server = process.env.DRAGOMAN_TEST_DATABASE_URL;
  let clusterDir: string | undefined;
  if (!server) {
    const out = execFileSync(CLUSTER, ['start'], { encoding: 'utf8' });
    clusterDir = /PGTEST_DIR=(\S+)/.exec(out)![1];
    server = /DRAGOMAN_TEST_DATABASE_URL=(\S+)/.exec(out)![1]!;
  }
  const name = 'dragoman_bench_' + randomBytes(4).toString('hex');
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: server });
    await c.connect();
    await c.query(sql);
    await c.end();
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = '/' + name;
  try {
    return await fn(url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    if (clusterDir) execFileSync(CLUSTER, ['stop', clusterDir]);
  }
}

const rows: Row[] = [];
const breakdown: { backend: string; step: string; p50: number; p99: number }[] = [];
const dir = mkdtempSync(join(tmpdir(), 'dragoman-bench-accounts-'));
const sqliteStorage = openSqlite(join(dir, 'dragoman.db'));
const sqlite = new SqliteAccountStore(sqliteStorage, defaultPlanLimits('A'));
rows.push(...(await measure('SQLite (WAL, synchronous=NORMAL)', sqlite)));
await sqlite.close();
await sqliteStorage.close();
rmSync(dir, { recursive: true, force: true });

await withPostgres(async (url) => {
  const storage = openPostgres(url);
  const store = new PgAccountStore(storage, defaultPlanLimits('A'));
  await store.start();
  rows.push(...(await measure('PostgreSQL (loopback, pool 10)', store)));
  await store.close();
  await storage.close();
});

const fmt = (ms: number) => ms.toFixed(3);
console.log(`\nAccounting overhead per admitted request (key lookup + limits + rate-limit hit + charge), ${REQUESTS} requests, ${KEYS} keys\n`);
console.log('| backend | in flight | p50 ms | p99 ms | requests/s |');
console.log('|---|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.backend} | ${r.concurrency} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${Math.round(r.perSecond)} |`);
}
console.log('\nPer store call, one at a time\n');
console.log('| backend | call | p50 ms | p99 ms |');
console.log('|---|---|---:|---:|');
for (const b of breakdown) console.log(`| ${b.backend} | ${b.step} | ${fmt(b.p50)} | ${fmt(b.p99)} |`);
const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
console.log(`\n(1-minute load average at the end: ${load} on ${(await import('node:os')).cpus().length} CPUs; numbers on a busy machine are upper bounds)`);
