// The SQLite account store on real database files in a temp dir: migrations, keys, plan figures and overrides,
// the atomic quota charge, refunds and the rolling 60 s window driven by explicit timestamps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPlanLimits } from '../../src/accounts/plans.ts';
import { openDatabase } from '../../src/storage/sqlite/open.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite/store.ts';
import { sqliteAccountStore } from '../stores.ts';
import { fileURLToPath } from 'node:url';
import { migrationFiles } from '../../src/storage/migration-files.ts';

let dir: string;
let file: string;
let store: SqliteAccountStore;

const newKey = (id: string, plan: 'free' | 'basic' | 'pro' | 'enterprise' = 'free', overrides = {}) =>
  store.insertKey({ id, prefix: 'dk_abc', hash: id.padEnd(64, '0').replace(/[^0-9a-f]/g, 'a'), plan, overrides, createdAt: 1 });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dragoman-store-'));
  file = join(dir, 'dragoman.db');
  store = sqliteAccountStore(file, defaultPlanLimits('A'));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('schema', () => {
  it('runs in WAL mode and applies each migration once, also when reopened', async () => {
    const second = sqliteAccountStore(file, defaultPlanLimits('A'));
    await second.close();
    const db = openDatabase(file, { readonly: true });
    expect(db.prepare('PRAGMA journal_mode').pluck().get()).toBe('wal');
    const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    // The storage layer's whole series (src/storage/sqlite/migrations), each file once; the accounts' tables first.
    const series = migrationFiles(fileURLToPath(new URL('../../src/storage/sqlite/migrations/', import.meta.url)));
    expect(rows).toEqual(series.map(({ version, name }) => ({ version, name })));
    expect(rows.slice(0, 2)).toEqual([{ version: 1, name: '001_init.sql' }, { version: 2, name: '002_charge_ledger.sql' }]);
    db.close();
  });
});

describe('ping (what /ready asks)', () => {
  it('commits a write: it fails when the file cannot be written (as on a full disk), not only when it cannot be locked', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
    const reader = openDatabase(file, { readonly: true });
    expect(reader.prepare('PRAGMA application_id').pluck().get()).toBe(0x4452474d);
    reader.close();
    // Writes refused on the store's own connection: taking the lock and rolling back would still pass.
    (store as unknown as { db: Database.Database }).db.exec('PRAGMA query_only = 1');
    await expect(store.ping()).rejects.toThrow(/readonly|read-only|query_only/i);
  });
});

describe('plans and limits', () => {
  it('has the four plans with preset A and B figures', async () => {
    const a = await store.listPlans();
    expect(a.map((p) => [p.name, p.monthlyChars, p.rpm])).toEqual([
      ['free', 500_000, 10],
      ['basic', 5_000_000, 60],
      ['pro', 50_000_000, 300],
      ['enterprise', null, null],
    ]);
    const b = sqliteAccountStore(join(dir, 'b.db'), defaultPlanLimits('B'));
    expect((await b.listPlans()).map((p) => p.rpm)).toEqual([100, 300, 1000, null]);
    await b.close();
  });

  it('edits a plan, resets it, and lets a key override its plan', async () => {
    await newKey('k1', 'basic');
    expect(await store.limitsFor('k1')).toEqual({ monthlyChars: 5_000_000, rpm: 60 });
    const p = await store.setPlan('basic', { rpm: 77, monthlyChars: null });
    expect(p).toMatchObject({ rpm: 77, monthlyChars: null, customized: { rpm: true, monthlyChars: true } });
    expect(await store.limitsFor('k1')).toEqual({ monthlyChars: null, rpm: 77 });
    await store.setKeyOverrides('k1', { monthlyChars: 1234 });
    expect(await store.limitsFor('k1')).toEqual({ monthlyChars: 1234, rpm: 77 });
    await store.resetPlan('basic', { rpm: true, monthlyChars: true });
    await store.clearKeyOverrides('k1', { monthlyChars: true });
    expect(await store.limitsFor('k1')).toEqual({ monthlyChars: 5_000_000, rpm: 60 });
    expect(await store.setKeyOverrides('nope', { rpm: 1 })).toBe(false);
  });
});

describe('quota', () => {
  it('charges up to the limit exactly and refuses beyond it without charging', async () => {
    await newKey('k1', 'free', { monthlyChars: 100 });
    const a = await store.charge('k1', '2026-01', 60);
    expect(a).toMatchObject({ ok: true, used: 60, limit: 100 });
    const b = await store.charge('k1', '2026-01', 41);
    expect(b).toEqual({ ok: false, used: 60, limit: 100 });
    const c = await store.charge('k1', '2026-01', 40);
    expect(c).toMatchObject({ ok: true, used: 100 });
    expect(await store.usage('k1', '2026-01')).toEqual({ keyId: 'k1', period: '2026-01', chars: 100, requests: 2 });
    // A new month starts from zero.
    expect(await store.charge('k1', '2026-02', 100)).toMatchObject({ ok: true, used: 100 });
  });

  it('refund gives the characters and the request back', async () => {
    await newKey('k1');
    const a = await store.charge('k1', '2026-01', 10);
    if (!a.ok) throw new Error('expected a charge');
    await store.refund(a.charge);
    expect(await store.usage('k1', '2026-01')).toMatchObject({ chars: 0, requests: 0 });
  });

  it('two connections (server and CLI) never overspend together', async () => {
    await newKey('k1', 'free', { monthlyChars: 1000 });
    const other = sqliteAccountStore(file, defaultPlanLimits('A'));
    let ok = 0;
    for (let i = 0; i < 60; i++) {
      const s = i % 2 ? store : other;
      if ((await s.charge('k1', '2026-01', 30)).ok) ok++;
    }
    await other.close();
    expect(ok).toBe(33);
    expect((await store.usage('k1', '2026-01')).chars).toBe(990);
  });

  it('an unlimited key is always charged', async () => {
    await newKey('e', 'enterprise');
    expect(await store.charge('e', '2026-01', 10 ** 9)).toMatchObject({ ok: true, limit: null });
  });
});

describe('rolling window', () => {
  it('counts each request for exactly 60 s and gives the exact wait', async () => {
    await newKey('k1');
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      expect(await store.hitRateLimit('k1', 3, t0 + i * 10_000)).toMatchObject({ ok: true, remaining: 2 - i });
    }
    // Window holds t0, t0+10s, t0+20s. At t0+30.5s the oldest frees at t0+60s: 29.5 s -> 30.
    const refused = await store.hitRateLimit('k1', 3, t0 + 30_500);
    expect(refused).toMatchObject({ ok: false, retryAfterSeconds: 30, remaining: 0 });
    // Still refused 1 ms before the oldest leaves, accepted at exactly 60 s after it.
    expect((await store.hitRateLimit('k1', 3, t0 + 59_999)).ok).toBe(false);
    expect(await store.hitRateLimit('k1', 3, t0 + 60_000)).toMatchObject({ ok: true, remaining: 0 });
    // Refused requests were not counted: the next slot is when t0+10s leaves.
    expect(await store.hitRateLimit('k1', 3, t0 + 60_001)).toMatchObject({ ok: false, retryAfterSeconds: 10 });
  });

  it('unlimited records nothing', async () => {
    await newKey('k1');
    for (let i = 0; i < 5; i++) expect((await store.hitRateLimit('k1', null, i)).ok).toBe(true);
  });
});
