// A key's stored bytes in the job store, on both backends, with two stores on the same data (two replicas): inserts
// that race never keep more than the limit between them, a job is counted once however often its size is set, and
// deleting a job frees its bytes. PostgreSQL runs with DRAGOMAN_TEST_DATABASE_URL (see test/postgres/required.test.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/documents/job.ts';
import { PgJobStore } from '../../src/documents/postgres-store.ts';
import { SqliteJobStore } from '../../src/documents/sqlite-store.ts';
import type { JobStore } from '../../src/documents/store.ts';
import { openPostgres } from '../../src/storage/postgres/storage.ts';
import { openSqlite } from '../../src/storage/sqlite/storage.ts';
import { freshDatabase, TEST_DATABASE_URL } from '../postgres/pg-helpers.ts';

interface Backend {
  name: string;
  enabled: boolean;
  /** Two stores on the same fresh data, and what removes it. */
  open(): Promise<{ stores: [JobStore, JobStore]; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    enabled: true,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'dragoman-storage-'));
      const file = join(dir, 'dragoman.db');
      // Two connections on one file: two processes on the same data directory.
      const [one, two] = [openSqlite(file), openSqlite(file)];
      return {
        stores: [new SqliteJobStore(one), new SqliteJobStore(two)],
        cleanup: async () => {
          await one.close();
          await two.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    enabled: TEST_DATABASE_URL !== undefined,
    async open() {
      const db = await freshDatabase();
      // Two pools on one database: two replicas.
      const [one, two] = [openPostgres(db.url), openPostgres(db.url)];
      return {
        stores: [new PgJobStore(one), new PgJobStore(two)],
        cleanup: async () => {
          await one.close();
          await two.close();
          await db.drop();
        },
      };
    },
  },
];

let n = 0;
function job(keyId: string, storedBytes: number, fields: Partial<JobRecord> = {}): JobRecord {
  const id = (++n).toString(16).padStart(32, '0');
  return {
    id, keyId, status: 'queued', filename: 'a.txt', format: 'txt', source: 'en', detectedSource: undefined, target: 'de', glossary: undefined,
    characters: 1, progress: 0, createdAt: 0, expiresAt: 86_400_000, error: undefined, chargeState: 'charged', charge: '{}',
    leaseUntil: 0, storedBytes, downloadToken: undefined, ...fields,
  };
}

let cleanup: (() => Promise<void>) | undefined;
let opened: JobStore[] = [];

afterEach(async () => {
  for (const s of opened) await s.close();
  opened = [];
  await cleanup?.();
  cleanup = undefined;
});

async function open(backend: Backend): Promise<[JobStore, JobStore]> {
  const o = await backend.open();
  opened = [...o.stores];
  cleanup = o.cleanup;
  return o.stores;
}

describe.each(backends.filter((b) => b.enabled))('stored bytes per key: $name', (backend) => {
  it('inserts racing on two stores keep at most the limit between them; another key is not counted', async () => {
    const [a, b] = await open(backend);
    const tries = Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).insertWithin(job('k_one', 100), 1000));
    const other = await a.insertWithin(job('k_two', 900), 1000);
    const results = await Promise.all(tries);
    expect(results.filter((r) => r.inserted)).toHaveLength(10);
    // Every refusal saw the key full: what the others keep, never a partial sum.
    for (const r of results.filter((x) => !x.inserted)) expect(r.used).toBe(1000);
    expect(other).toEqual({ inserted: true, used: 0 });
    expect(await a.storedBytes('k_one')).toBe(1000);
    expect(await b.storedBytes('k_one')).toBe(1000);
    expect(await b.storedBytes('k_two')).toBe(900);
  });

  it('a size set twice counts once; a deleted job frees its bytes; no limit inserts whatever the sum', async () => {
    const [a, b] = await open(backend);
    const first = job('k_one', 600);
    const second = job('k_one', 400);
    expect((await a.insertWithin(first, 1000)).inserted).toBe(true);
    expect((await b.insertWithin(second, 1000)).inserted).toBe(true);
    // The result written (by one replica, then again by another that took the job over): set, never added.
    await a.setStoredBytes(first.id, 550);
    await b.setStoredBytes(first.id, 550);
    expect(await a.storedBytes('k_one')).toBe(950);
    expect((await b.insertWithin(job('k_one', 51), 1000)).inserted).toBe(false);
    expect((await b.insertWithin(job('k_one', 50), 1000)).inserted).toBe(true);
    await a.delete(second.id);
    expect(await b.storedBytes('k_one')).toBe(600);
    expect((await a.insertWithin(job('k_one', 10_000), null)).inserted).toBe(true);
    expect((await (await b.get(first.id))!).storedBytes).toBe(550);
  });

  it('a job is found by its download token only', async () => {
    const [a, b] = await open(backend);
    const withToken = job('k_one', 10, { downloadToken: 'ab'.repeat(32) });
    await a.insertWithin(withToken, null);
    await a.insertWithin(job('k_one', 10), null);
    expect((await b.byDownloadToken('ab'.repeat(32)))?.id).toBe(withToken.id);
    expect(await b.byDownloadToken('cd'.repeat(32))).toBeUndefined();
    expect(await b.byDownloadToken(withToken.id)).toBeUndefined();
  });
});

describe.each(backends.filter((b) => b.enabled))('a job with a translation memory: $name', (backend) => {
  it("keeps the memory's id, threshold and learning, read back by another replica; none stays none", async () => {
    const [a, b] = await open(backend);
    const withMemory = job('k_one', 10, { memory: { id: 'tm-1', threshold: 85, update: true } });
    const without = job('k_one', 10);
    await a.insert(withMemory);
    await a.insert(without);
    expect((await b.get(withMemory.id))?.memory).toEqual({ id: 'tm-1', threshold: 85, update: true });
    expect((await b.get(without.id))?.memory).toBeUndefined();
  });
});
