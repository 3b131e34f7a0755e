// PostgreSQL store under faults: replicas migrating at once, a connection lost before a charge reached the
// server or after it committed (through a proxy that cuts on cue), the database unreachable and back.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { Gate } from '../../src/accounts/gate.ts';
import { defaultPlanLimits } from '../../src/accounts/plans.ts';
import { PgAccountStore } from '../../src/accounts/postgres/store.ts';
import { AccountsUnavailable } from '../../src/accounts/errors.ts';
import { fromDomainError } from '../../src/http/domain-errors.ts';
import { type FreshDatabase, freshDatabase, sql, TEST_DATABASE_URL } from './pg-helpers.ts';
import { FlakyProxy } from './tcp-proxy.ts';
import { describeNeeding } from '../tools.ts';
import { pgAccountStore } from '../stores.ts';
import { fileURLToPath } from 'node:url';
import { migrationFiles } from '../../src/storage/migration-files.ts';

const open = async (url: string) => {
  const s = pgAccountStore(url, defaultPlanLimits('A'), { connectTimeoutMs: 500 });
  await s.start();
  return s;
};
const key = (store: PgAccountStore, id: string, monthlyChars?: number) =>
  store.insertKey({ id, prefix: 'dk_x', hash: `h-${id}`, plan: 'free', overrides: { monthlyChars }, createdAt: 1 });

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describeNeeding('postgresql')('PostgreSQL store faults', () => {
  let db: FreshDatabase;
  let proxy: FlakyProxy;
  const stores: PgAccountStore[] = [];

  beforeEach(async () => {
    db = await freshDatabase();
    proxy = await FlakyProxy.start(db.url);
  });
  afterEach(async () => {
    proxy.refuse = false;
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await proxy.close();
    await db.drop();
  });

  it('replicas starting together apply each migration once (advisory lock)', async () => {
    const many = await Promise.all(Array.from({ length: 6 }, () => open(db.url)));
    stores.push(...many);
    const rows = await sql(db.url, 'SELECT version, name FROM schema_migrations ORDER BY version');
    // The storage layer's whole series (src/storage/postgres/migrations), each file once.
    const series = migrationFiles(fileURLToPath(new URL('../../src/storage/postgres/migrations/', import.meta.url)));
    expect(rows).toEqual(series.map(({ version, name }) => ({ version, name })));
    expect(rows.slice(0, 2)).toEqual([{ version: 1, name: '001_init.sql' }, { version: 2, name: '002_charge_keep_until.sql' }]);
    await key(many[0]!, 'k1');
    expect((await many[5]!.getKey('k1'))?.id).toBe('k1');
  });

  for (const cut of ['before-send', 'after-commit'] as const) {
    it(`a connection lost ${cut === 'before-send' ? 'before the charge reached the server' : 'after the charge committed'} charges exactly once`, async () => {
      const direct = await open(db.url);
      const viaProxy = await open(proxy.url(db.url));
      stores.push(direct, viaProxy);
      await key(direct, 'k1', 1000);
      proxy.arm('dragoman_charge', cut);
      const outcome = await viaProxy.charge('k1', '2026-01', 100);
      expect(proxy.cuts).toBe(1);
      expect(outcome).toMatchObject({ ok: true, used: 100 });
      expect(await direct.usage('k1', '2026-01')).toMatchObject({ chars: 100, requests: 1 });
      // The refund of that charge is exact too, even when its own connection breaks after it committed.
      if (!outcome.ok) throw new Error('expected a charge');
      proxy.arm('dragoman_refund', 'after-commit');
      await viaProxy.refund(outcome.charge);
      expect(proxy.cuts).toBe(2);
      expect(await direct.usage('k1', '2026-01')).toMatchObject({ chars: 0, requests: 0 });
    });
  }

  it('database unreachable: 503 server_error saying a retry is safe, then normal service when it is back', async () => {
    const direct = await open(db.url);
    const viaProxy = await open(proxy.url(db.url));
    stores.push(direct, viaProxy);
    await key(direct, 'k1', 1000);
    proxy.refuse = true;
    proxy.cutAll();
    const err = await viaProxy.charge('k1', '2026-01', 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AccountsUnavailable);
    // As the HTTP surfaces answer it (src/http/domain-errors.ts).
    expect(fromDomainError(err)).toMatchObject({ status: 503, type: 'server_error', headers: { 'retry-after': '1' } });
    expect(fromDomainError(err)!.message).toMatch(/retry.*safe/i);
    await expect(viaProxy.findKeyByHash('h-k1')).rejects.toBeInstanceOf(AccountsUnavailable);
    await expect(viaProxy.hitRateLimit('k1', 10, 1)).rejects.toBeInstanceOf(AccountsUnavailable);
    await expect(viaProxy.ping()).rejects.toBeInstanceOf(AccountsUnavailable);
    proxy.refuse = false;
    await viaProxy.ping();
    expect(await viaProxy.charge('k1', '2026-01', 10)).toMatchObject({ ok: true, used: 10 });
    // The charge that failed while the database was away never counted.
    expect(await direct.usage('k1', '2026-01')).toMatchObject({ chars: 10, requests: 1 });
  });

  it('ping (/ready) fails while the database refuses writes, and passes again once it accepts them', async () => {
    const store = await open(db.url);
    stores.push(store);
    await store.ping();
    const name = new URL(db.url).pathname.slice(1);
    // From the server's own database (a session of the read-only one could not undo it); new sessions get the
    // setting, so the store's pooled ones are closed.
    const admin = TEST_DATABASE_URL!;
    const terminate = 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1';
    await sql(admin, `ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    await sql(admin, terminate, [name]);
    // Reads still work (a SELECT-only ping passed here), the write is refused: ping fails, /ready says not ready.
    expect(await store.getKey('nobody')).toBeUndefined();
    await expect(store.ping()).rejects.toThrow();
    await expect(store.ping()).rejects.toThrow();
    await sql(admin, `ALTER DATABASE ${name} SET default_transaction_read_only = off`);
    await sql(admin, terminate, [name]);
    expect(await until(async () => store.ping().then(() => true, () => false), 5_000)).toBe(true);
  });

  it('an outage is not taken for wrong keys: the gate answers 503, never the 429 of the failed-auth throttle', async () => {
    const viaProxy = await open(proxy.url(db.url));
    stores.push(viaProxy);
    const accounts = new Accounts(viaProxy, new ManualClock());
    const gate = new Gate(accounts, { failedAuthPerMinute: 3 });
    const { secret } = await accounts.createKey({ plan: 'pro' });
    proxy.refuse = true;
    proxy.cutAll();
    for (let i = 0; i < 6; i++) await expect(gate.admit(secret, '10.0.0.1')).rejects.toBeInstanceOf(AccountsUnavailable);
    proxy.refuse = false;
    expect((await gate.admit(secret, '10.0.0.1')).key.plan).toBe('pro');
  });

  it('a charge that committed but whose answer was lost while the database stayed away is cancelled later', async () => {
    const direct = await open(db.url);
    const viaProxy = await open(proxy.url(db.url));
    stores.push(direct, viaProxy);
    await key(direct, 'k1', 1000);
    proxy.arm('dragoman_charge', 'after-commit');
    setTimeout(() => {
      proxy.refuse = true; // every retry of the charge fails to connect
    }, 100);
    await expect(viaProxy.charge('k1', '2026-01', 100)).rejects.toBeInstanceOf(AccountsUnavailable);
    // It did commit: the request that got 503 must not keep it.
    expect(await direct.usage('k1', '2026-01')).toMatchObject({ chars: 100 });
    expect(viaProxy.pendingCancellations()).toBe(1);
    proxy.refuse = false;
    expect(await until(async () => (await direct.usage('k1', '2026-01')).chars === 0, 5000)).toBe(true);
    expect(viaProxy.pendingCancellations()).toBe(0);
  });

  it('a refund that arrives before its charge leaves a tombstone the charge collides with', async () => {
    const s = await open(db.url);
    stores.push(s);
    await key(s, 'k1', 1000);
    const defaults = JSON.stringify({ free: 1000, basic: 1, pro: 1, enterprise: -1 });
    const [r] = await sql(db.url, 'SELECT dragoman_refund($1, $2, $3, $4) AS gave', ['c1', 'k1', '2026-01', 1]);
    expect(r).toEqual({ gave: false });
    const [c] = await sql(db.url, 'SELECT status FROM dragoman_charge($1, $2, $3, $4, $5::jsonb, $6)', [
      'c1',
      'k1',
      '2026-01',
      50,
      defaults,
      1,
    ]);
    expect(c).toEqual({ status: 'cancelled' });
    expect(await s.usage('k1', '2026-01')).toMatchObject({ chars: 0, requests: 0 });
    // The same id twice is charged once ('already').
    const twice = [];
    for (let i = 0; i < 2; i++) {
      const [row] = await sql<{ status: string }>(db.url, 'SELECT status FROM dragoman_charge($1, $2, $3, $4, $5::jsonb, $6)', [
        'c2',
        'k1',
        '2026-01',
        50,
        defaults,
        1,
      ]);
      twice.push(row!.status);
    }
    expect(twice).toEqual(['charged', 'already']);
    expect(await s.usage('k1', '2026-01')).toMatchObject({ chars: 50, requests: 1 });
  });
});
