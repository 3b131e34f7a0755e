// One behaviour, two backends: the account store contract run against SQLite (a real file in a temp dir) and
// PostgreSQL (a fresh database on DRAGOMAN_TEST_DATABASE_URL; not run without it, see required.test.ts).
// Each backend also gets a second, independent store on the same data: another replica, or the CLI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { defaultPlanLimits } from '../../src/accounts/plans.ts';
import { PgAccountStore } from '../../src/accounts/postgres/store.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite/store.ts';
import type { AccountStore } from '../../src/accounts/store.ts';
import type { PlanName } from '../../src/accounts/types.ts';
import { loadConfig } from '../../src/config/env.ts';
import { freshDatabase, sql, TEST_DATABASE_URL } from './pg-helpers.ts';
import { describeNeeding } from '../tools.ts';
import { configuredAccountStore, pgAccountStore, sqliteAccountStore } from '../stores.ts';

interface Backend {
  name: string;
  enabled: boolean;
  /** Opens the first store on fresh data; `another()` opens a second one on the same data. */
  setup(): Promise<{ open(): Promise<AccountStore>; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    enabled: true,
    async setup() {
      const dir = mkdtempSync(join(tmpdir(), 'dragoman-backends-'));
      return {
        open: async () => sqliteAccountStore(join(dir, 'dragoman.db'), defaultPlanLimits('A')),
        cleanup: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: 'postgres',
    enabled: TEST_DATABASE_URL !== undefined,
    async setup() {
      const db = await freshDatabase();
      return {
        open: async () => {
          const s = pgAccountStore(db.url, defaultPlanLimits('A'));
          await s.start();
          return s;
        },
        cleanup: () => db.drop(),
      };
    },
  },
];

for (const backend of backends) {
  (backend.name === 'sqlite' ? describe : describeNeeding('postgresql'))(`account store on ${backend.name}`, () => {
    let env: Awaited<ReturnType<Backend['setup']>>;
    let store: AccountStore;
    let other: AccountStore;
    const newKey = (id: string, plan: PlanName = 'free', overrides = {}) =>
      store.insertKey({ id, prefix: 'dk_abc', hash: `hash-${id}`, plan, overrides, createdAt: 1 });

    beforeEach(async () => {
      env = await backend.setup();
      store = await env.open();
      other = await env.open();
    });
    afterEach(async () => {
      await store.close();
      await other.close();
      await env.cleanup();
    });

    it('has the four plans, edits and resets them, and per-key overrides win', async () => {
      expect((await store.listPlans()).map((p) => [p.name, p.monthlyChars, p.rpm])).toEqual([
        ['free', 500_000, 10],
        ['basic', 5_000_000, 60],
        ['pro', 50_000_000, 300],
        ['enterprise', null, null],
      ]);
      await newKey('k1', 'basic');
      expect(await store.setPlan('basic', { rpm: 77, monthlyChars: null })).toMatchObject({
        rpm: 77,
        monthlyChars: null,
        customized: { rpm: true, monthlyChars: true },
      });
      // Seen by the other store at once: nothing is cached.
      expect(await other.limitsFor('k1')).toEqual({ monthlyChars: null, rpm: 77 });
      expect(await store.setKeyOverrides('k1', { monthlyChars: 1234 })).toBe(true);
      expect(await other.limitsFor('k1')).toEqual({ monthlyChars: 1234, rpm: 77 });
      await store.resetPlan('basic', { rpm: true, monthlyChars: true });
      await store.clearKeyOverrides('k1', { monthlyChars: true });
      expect(await other.limitsFor('k1')).toEqual({ monthlyChars: 5_000_000, rpm: 60 });
      expect(await store.setKeyPlan('k1', 'pro')).toBe(true);
      expect(await other.limitsFor('k1')).toEqual({ monthlyChars: 50_000_000, rpm: 300 });
      expect(await store.setKeyOverrides('nope', { rpm: 1 })).toBe(false);
      expect(await store.limitsFor('nope')).toBeUndefined();
    });

    it('stores keys by hash, refuses a duplicate id, and a revocation is seen by the other store at once', async () => {
      const k = await newKey('k1', 'pro', { rpm: 5, monthlyChars: null });
      expect(k).toMatchObject({ id: 'k1', plan: 'pro', overrides: { rpm: 5, monthlyChars: null }, revokedAt: null });
      expect((await other.findKeyByHash('hash-k1'))?.key.id).toBe('k1');
      expect(await other.findKeyByHash('hash-none')).toBeUndefined();
      await expect(newKey('k1')).rejects.toThrow(/UNIQUE/);
      expect(await store.revokeKey('k1', 42)).toBe(true);
      expect(await store.revokeKey('k1', 43)).toBe(false);
      expect((await other.findKeyByHash('hash-k1'))?.key.revokedAt).toBe(42);
      expect((await other.listKeys()).map((x) => x.id)).toEqual(['k1']);
    });

    it('Accounts.authenticate on one store refuses a key revoked through the other', async () => {
      const clock = new ManualClock();
      const a = new Accounts(store, clock);
      const b = new Accounts(other, clock);
      const { key, secret } = await a.createKey({ plan: 'free' });
      expect((await b.authenticate(secret)).id).toBe(key.id);
      await a.store.revokeKey(key.id, clock.now());
      await expect(b.authenticate(secret)).rejects.toThrow(/revoked/);
    });

    it('charges up to the limit exactly, refuses beyond it without charging, and counts per month', async () => {
      await newKey('k1', 'free', { monthlyChars: 100 });
      expect(await store.charge('k1', '2026-01', 60)).toMatchObject({ ok: true, used: 60, limit: 100 });
      expect(await other.charge('k1', '2026-01', 41)).toEqual({ ok: false, used: 60, limit: 100 });
      expect(await other.charge('k1', '2026-01', 40)).toMatchObject({ ok: true, used: 100 });
      expect(await store.usage('k1', '2026-01')).toEqual({ keyId: 'k1', period: '2026-01', chars: 100, requests: 2 });
      expect(await store.charge('k1', '2026-02', 100)).toMatchObject({ ok: true, used: 100 });
      expect(await store.charge('k1', '2026-03', 101)).toMatchObject({ ok: false, used: 0 });
      expect(await store.charge('no-such-key', '2026-01', 0)).toEqual({ ok: false, used: 0, limit: 0 });
    });

    it('refund gives the characters and the request back, once', async () => {
      await newKey('k1');
      await store.charge('k1', '2026-01', 5);
      const a = await store.charge('k1', '2026-01', 10);
      if (!a.ok) throw new Error('expected a charge');
      await store.refund(a.charge);
      expect(await other.usage('k1', '2026-01')).toMatchObject({ chars: 5, requests: 1 });
    });

    it('a named charge is made once and given back once, whichever store is asked how often', async () => {
      await newKey('k1', 'free', { monthlyChars: 100 });
      const named = { id: 'job-1', keepUntil: Date.now() + 86_400_000 };
      const first = await store.charge('k1', '2026-01', 30, named);
      expect(first).toMatchObject({ ok: true, used: 30, charge: { id: 'job-1', chars: 30 } });
      // A repeat (a retry, a restarted server settling the job) charges nothing more and answers the same charge.
      expect(await other.charge('k1', '2026-01', 30, named)).toMatchObject({ ok: true, charge: { id: 'job-1', chars: 30 } });
      expect(await store.usage('k1', '2026-01')).toMatchObject({ chars: 30, requests: 1 });
      if (!first.ok) throw new Error('expected a charge');
      await Promise.all([store.refund(first.charge), other.refund(first.charge), store.refund(first.charge)]);
      expect(await other.usage('k1', '2026-01')).toMatchObject({ chars: 0, requests: 0 });
      // An id refunded before it was ever charged (a job whose acceptance was cut short) can no longer be charged.
      await store.refund({ id: 'job-2', keyId: 'k1', period: '2026-01', chars: 40 });
      await expect(other.charge('k1', '2026-01', 40, { ...named, id: 'job-2' })).rejects.toThrow();
      expect(await store.usage('k1', '2026-01')).toMatchObject({ chars: 0, requests: 0 });
    });

    it('the per-day ledger adds up to the month after charges, named charges and refunds, each taken off its own day', async () => {
      await newKey('k_day', 'pro');
      const plain = await store.charge('k_day', '2026-03', 100, undefined, '2026-03-01');
      await other.charge('k_day', '2026-03', 40, undefined, '2026-03-02');
      await store.charge('k_day', '2026-03', 7, { id: 'job-day', keepUntil: Date.now() + 3_600_000 }, '2026-03-02');
      await other.charge('k_day', '2026-03', 7, { id: 'job-day', keepUntil: Date.now() + 3_600_000 }, '2026-03-03'); // a repeat: nothing more
      const gone = await store.charge('k_day', '2026-03', 5, undefined, '2026-03-02');
      expect(plain.ok && gone.ok).toBe(true);
      // Refunds come a day later: still off the day of their charge.
      if (gone.ok) await other.refund(gone.charge);
      await store.refund({ id: 'job-day', keyId: 'k_day', period: '2026-03', chars: 7 });
      await other.refund({ id: 'job-day', keyId: 'k_day', period: '2026-03', chars: 7 }); // once only
      const rows = await other.dailyUsage({ from: '2026-03-01', to: '2026-03-31' });
      expect(rows.map((r) => [r.day, r.characters, r.requests, r.documentCharacters])).toEqual([
        ['2026-03-01', 100, 1, 0],
        ['2026-03-02', 40, 1, 0],
      ]);
      const month = await store.usage('k_day', '2026-03');
      expect([month.chars, month.requests]).toEqual([140, 2]);
      await store.charge('k_day', '2026-03', 9, { id: 'job-kept', keepUntil: Date.now() + 3_600_000 }, '2026-03-04');
      const withJob = await store.dailyUsage({ from: '2026-03-04', to: '2026-03-04', plan: 'pro' });
      expect(withJob.map((r) => [r.keyId, r.characters, r.documentCharacters])).toEqual([['k_day', 9, 9]]);
      expect(await store.dailyUsage({ from: '2026-03-01', to: '2026-03-31', plan: 'free' })).toEqual([]);
    });

    it('keeps the audit log, oldest first, readable from the other store', async () => {
      await store.addAudit({ at: 2000, actor: 'admin', action: 'key.revoke', keyId: 'k_a', detail: { plan: 'free' } });
      await other.addAudit({ at: 1000, actor: 'cli:ops', action: 'key.create', keyId: 'k_a', detail: { plan: 'free', name: null } });
      expect((await other.listAudit(0)).map((e) => [e.at, e.actor, e.action, e.keyId, e.detail])).toEqual([
        [1000, 'cli:ops', 'key.create', 'k_a', { plan: 'free', name: null }],
        [2000, 'admin', 'key.revoke', 'k_a', { plan: 'free' }],
      ]);
      expect((await store.listAudit(1500)).map((e) => e.action)).toEqual(['key.revoke']);
    });

    it('60 concurrent charges through two stores never overspend', async () => {
      await newKey('k1', 'free', { monthlyChars: 1000 });
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (i % 2 ? store : other).charge('k1', '2026-01', 30)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(33);
      expect(await store.usage('k1', '2026-01')).toMatchObject({ chars: 990, requests: 33 });
    });

    it('an unlimited key is always charged', async () => {
      await newKey('e', 'enterprise');
      expect(await store.charge('e', '2026-01', 10 ** 9)).toMatchObject({ ok: true, limit: null });
      expect(await store.charge('e', '2026-01', 10 ** 9)).toMatchObject({ ok: true, used: 2 * 10 ** 9 });
    });

    it('rolling window: each request counts for exactly 60 s, with the exact wait, across both stores', async () => {
      await newKey('k1');
      const t0 = 1_000_000;
      for (let i = 0; i < 3; i++) {
        const s = i % 2 ? other : store;
        expect(await s.hitRateLimit('k1', 3, t0 + i * 10_000)).toMatchObject({ ok: true, remaining: 2 - i });
      }
      expect(await store.hitRateLimit('k1', 3, t0 + 30_500)).toMatchObject({
        ok: false,
        retryAfterSeconds: 30,
        remaining: 0,
      });
      expect((await other.hitRateLimit('k1', 3, t0 + 59_999)).ok).toBe(false);
      expect(await other.hitRateLimit('k1', 3, t0 + 60_000)).toMatchObject({ ok: true, remaining: 0 });
      expect(await store.hitRateLimit('k1', 3, t0 + 60_001)).toMatchObject({ ok: false, retryAfterSeconds: 10 });
      for (let i = 0; i < 5; i++) expect((await store.hitRateLimit('k1', null, t0 + i)).ok).toBe(true);
    });

    it('a limit of 0 refuses every request, asking to wait a whole window', async () => {
      await newKey('k0');
      for (const t of [1_000, 2_000, 70_000]) {
        expect(await store.hitRateLimit('k0', 0, t)).toEqual({ ok: false, limit: 0, remaining: 0, retryAfterSeconds: 60, resetSeconds: 60 });
      }
      expect(await other.hitRateLimit('k0', 1, 70_001)).toMatchObject({ ok: true, remaining: 0 });
    });

    it('50 concurrent requests of a 10-per-minute key through two stores: exactly 10 pass', async () => {
      await newKey('k1');
      const t = 5_000_000;
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 ? store : other).hitRateLimit('k1', 10, t + i)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(10);
      const refused = results.filter((r) => !r.ok);
      // The first of the 10 accepted leaves the window 60 s after it arrived: nobody waits longer.
      for (const r of refused) if (!r.ok) expect(r.retryAfterSeconds).toBeLessThanOrEqual(60);
    });

    it('usage report lists every key, zeros included; ping succeeds', async () => {
      await newKey('a');
      await newKey('b');
      await store.charge('b', '2026-01', 7);
      expect(await other.usageReport('2026-01')).toEqual([
        { keyId: 'a', period: '2026-01', chars: 0, requests: 0 },
        { keyId: 'b', period: '2026-01', chars: 7, requests: 1 },
      ]);
      expect(await other.usageReport('2026-01', 'b')).toEqual([{ keyId: 'b', period: '2026-01', chars: 7, requests: 1 }]);
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}

describeNeeding('postgresql')('PostgreSQL ledger pruning', () => {
  it('a named charge is refunded more than an hour after it was made; an ordinary one is pruned with the hour', async () => {
    const db = await freshDatabase();
    const store = pgAccountStore(db.url, defaultPlanLimits('A'));
    try {
      await store.insertKey({ id: 'k1', prefix: 'dk_x', hash: 'h1', plan: 'free', createdAt: 1 });
      const named = await store.charge('k1', '2026-01', 30, { id: 'job-late', keepUntil: Date.now() + 86_400_000 });
      const plain = await store.charge('k1', '2026-01', 5);
      if (!named.ok || !plain.ok) throw new Error('expected two charges');
      // Two hours pass: the hourly pruning runs over both ledger rows.
      await sql(db.url, 'UPDATE charges SET at_ms = at_ms - $1', [2 * 3_600_000]);
      await (store as unknown as { maintain(): Promise<void> }).maintain();
      expect((await sql(db.url, 'SELECT id FROM charges')).map((r) => r.id)).toEqual(['job-late']);
      await store.refund(named.charge);
      await store.refund(named.charge);
      expect(await store.usage('k1', '2026-01')).toMatchObject({ chars: 5, requests: 1 });
    } finally {
      await store.close();
      await db.drop();
    }
  });
});

describeNeeding('postgresql')('backend selection', () => {
  it('the configured account store is PostgreSQL when DRAGOMAN_DATABASE_URL is set, and the data is shared', async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-select-'));
    try {
      const config = loadConfig({ DRAGOMAN_DATABASE_URL: db.url, DRAGOMAN_DATA_DIR: dataDir });
      const a = await configuredAccountStore(config);
      const b = await configuredAccountStore(config);
      expect(a).toBeInstanceOf(PgAccountStore);
      await a.insertKey({ id: 'k1', prefix: 'dk_x', hash: 'h1', plan: 'free', createdAt: 1 });
      expect((await b.getKey('k1'))?.plan).toBe('free');
      await a.close();
      await b.close();
      const c = await configuredAccountStore(loadConfig({ DRAGOMAN_DATA_DIR: dataDir }));
      expect(c).toBeInstanceOf(SqliteAccountStore);
      await c.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await db.drop();
    }
  });
});
