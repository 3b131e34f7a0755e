// The storage layer's one numbered migration series (src/storage): a fresh database gets every table, a database
// whose glossary and job tables exist outside the series (only the account migrations recorded, the other tables
// made by their stores on first use) opens with its rows kept, and a series with two files of one number is refused. Real SQLite files in a temp
// dir, and a fresh PostgreSQL database when DRAGOMAN_TEST_DATABASE_URL is set.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeNeeding } from '../tools.ts';
import { SqliteJobStore } from '../../src/documents/sqlite-store.ts';
import { PgJobStore } from '../../src/documents/postgres-store.ts';
import { COLUMNS, rowValues } from '../../src/documents/job-table.ts';
import type { JobRecord } from '../../src/documents/job.ts';
import { SqliteGlossaryStore } from '../../src/glossaries/sqlite.ts';
import { PgGlossaryStore } from '../../src/glossaries/postgres.ts';
import { toRow } from '../../src/glossaries/store.ts';
import type { Glossary } from '../../src/glossaries/types.ts';
import { openPostgres, openSqlite } from '../../src/storage/index.ts';
import { migrationFiles } from '../../src/storage/migration-files.ts';
import { migrate as migratePostgres } from '../../src/storage/postgres/migrate.ts';
import { migrate as migrateSqlite } from '../../src/storage/sqlite/migrate.ts';
import { openDatabase } from '../../src/storage/sqlite/open.ts';
import { freshDatabase } from '../postgres/pg-helpers.ts';

const SERIES = {
  sqlite: fileURLToPath(new URL('../../src/storage/sqlite/migrations/', import.meta.url)),
  postgres: fileURLToPath(new URL('../../src/storage/postgres/migrations/', import.meta.url)),
};

// The glossary and job tables as their stores make them on first use when the series does not hold them.
const OLD_GLOSSARIES = (integer: string) => `CREATE TABLE IF NOT EXISTS glossaries (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, created_at ${integer} NOT NULL, dictionaries TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS glossaries_owner ON glossaries (owner, created_at)`;
const OLD_JOBS = (integer: string, real: string, glossaryColumn: boolean) => `CREATE TABLE IF NOT EXISTS document_jobs (
  id TEXT PRIMARY KEY, key_id TEXT NOT NULL, status TEXT NOT NULL, filename TEXT NOT NULL, format TEXT NOT NULL, source TEXT,
  detected_source TEXT, target TEXT NOT NULL, characters ${integer} NOT NULL, progress ${real} NOT NULL DEFAULT 0,
  created_at ${integer} NOT NULL, expires_at ${integer} NOT NULL, error TEXT, charge_state TEXT NOT NULL, charge TEXT NOT NULL,
  lease_until ${integer} NOT NULL DEFAULT 0${glossaryColumn ? ', glossary TEXT' : ''});
CREATE INDEX IF NOT EXISTS document_jobs_expiry ON document_jobs (expires_at);`;

const glossary: Glossary = {
  id: 'g-1', owner: 'key-1', name: 'product terms', createdAt: 1_700_000_000_000,
  dictionaries: [{ source: 'en', target: 'de', entries: [['server', 'Server']] }],
};
const job: JobRecord = {
  id: 'a'.repeat(32), keyId: 'key-1', status: 'done', filename: 'notes.txt', format: 'txt', source: 'en', detectedSource: undefined,
  target: 'de', glossary: undefined, characters: 42, progress: 1, createdAt: 1_700_000_000_000, expiresAt: 4_000_000_000_000,
  error: undefined, chargeState: 'charged', charge: '{"keyId":"key-1","period":"2026-11","chars":42}', leaseUntil: 0, storedBytes: 0, downloadToken: undefined,
};
/** The job table's columns in the earlier layout: without the finishing time, with and without the glossary. */
const OLD_JOB_COLUMNS = COLUMNS.replace(/, finished_at, stored_bytes, download_token, memory, model$/, '');
const JOB_COLUMNS_WITHOUT_GLOSSARY = OLD_JOB_COLUMNS.replace(/, glossary$/, '');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dragoman-storage-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the series' first `count` files: only the account migrations. */
function firstMigrations(series: string, count: number): string {
  const copy = join(dir, `series-${count}`) + '/';
  mkdirSync(copy);
  for (const name of readdirSync(series).filter((f) => /^\d+_.*\.sql$/.test(f)).sort().slice(0, count)) copyFileSync(series + name, copy + name);
  return copy;
}

describe('the numbered series', () => {
  it('both backends number the same migrations 1, 2, 3, ... with no gap', () => {
    const sqlite = migrationFiles(SERIES.sqlite).map((f) => f.version);
    const postgres = migrationFiles(SERIES.postgres).map((f) => f.version);
    expect(sqlite).toEqual(sqlite.map((_v, i) => i + 1));
    expect(postgres).toEqual(sqlite);
    expect(sqlite.length).toBeGreaterThanOrEqual(5);
  });

  it('refuses two files of one number (a merge that numbered two migrations alike) and a gap', () => {
    const twice = join(dir, 'twice') + '/';
    mkdirSync(twice);
    for (const name of ['001_a.sql', '002_b.sql', '002_c.sql']) writeFileSync(twice + name, 'SELECT 1;');
    expect(() => migrationFiles(twice)).toThrow(/two migrations are numbered 2 .*002_b\.sql, 002_c\.sql/);
    const gap = join(dir, 'gap') + '/';
    mkdirSync(gap);
    for (const name of ['001_a.sql', '003_c.sql']) writeFileSync(gap + name, 'SELECT 1;');
    expect(() => migrationFiles(gap)).toThrow(/003_c\.sql .* expects 2 next/);
  });
});

describe('SQLite', () => {
  it('a fresh database gets every table of the series, recorded once; opening it again applies nothing', async () => {
    const file = join(dir, 'dragoman.db');
    const storage = openSqlite(file);
    const tables = (storage.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name);
    expect(tables).toEqual(expect.arrayContaining(['api_keys', 'plans', 'usage', 'charges', 'rate_hits', 'glossaries', 'document_jobs']));
    const recorded = storage.db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[];
    expect(recorded.map((r) => r.version)).toEqual(migrationFiles(SERIES.sqlite).map((f) => f.version));
    await storage.close();
    const again = openDatabase(file);
    expect(migrateSqlite(again)).toEqual([]);
    again.close();
  });

  for (const glossaryColumn of [true, false]) {
    it(`a database with tables outside the series (job table ${glossaryColumn ? 'with' : 'without'} its glossary column) opens with its rows kept`, async () => {
      const file = join(dir, 'dragoman.db');
      const old = openDatabase(file);
      expect(migrateSqlite(old, firstMigrations(SERIES.sqlite, 2))).toEqual(['001_init.sql', '002_charge_ledger.sql']);
      old.exec(OLD_GLOSSARIES('INTEGER'));
      old.exec(OLD_JOBS('INTEGER', 'REAL', glossaryColumn));
      old.prepare(`INSERT INTO api_keys (id, prefix, hash, plan, created_at) VALUES ('key-1', 'dk_old', 'hash-1', 'free', 1)`).run();
      old.prepare('INSERT INTO glossaries (id, owner, name, created_at, dictionaries) VALUES (@id, @owner, @name, @created_at, @dictionaries)').run(toRow(glossary));
      const columns = glossaryColumn ? OLD_JOB_COLUMNS : JOB_COLUMNS_WITHOUT_GLOSSARY;
      const values = rowValues(job).slice(0, columns.split(',').length);
      old.prepare(`INSERT INTO document_jobs (${columns}) VALUES (${values.map(() => '?').join(', ')})`).run(...values);
      old.close();

      const storage = openSqlite(file);
      const versions = (storage.db.prepare('SELECT version FROM schema_migrations ORDER BY version').all() as { version: number }[]).map((r) => r.version);
      expect(versions).toEqual(migrationFiles(SERIES.sqlite).map((f) => f.version));
      expect(storage.db.prepare(`SELECT hash FROM api_keys WHERE id = 'key-1'`).get()).toEqual({ hash: 'hash-1' });
      expect(await new SqliteGlossaryStore(storage).get('key-1', 'g-1')).toEqual(glossary);
      const jobs = new SqliteJobStore(storage);
      expect(await jobs.get(job.id)).toEqual(job);
      // The glossary column is there either way, and written.
      const withGlossary = { ...job, id: 'b'.repeat(32), glossary: 'g-1' };
      await jobs.insert(withGlossary);
      expect(await jobs.get(withGlossary.id)).toEqual(withGlossary);
      // So is the finishing time, and the key's history lists the jobs newest first.
      const finished = { ...job, id: 'c'.repeat(32), createdAt: job.createdAt + 1, finishedAt: job.createdAt + 5_000 };
      await jobs.insert(finished);
      expect(await jobs.get(finished.id)).toEqual(finished);
      const listed = await jobs.list('key-1', { nowMs: job.createdAt, limit: 10, after: undefined });
      expect(listed.map((j) => j.id)).toEqual([finished.id, withGlossary.id, job.id]);
      await storage.close();
    });
  }
});

describeNeeding('postgresql')('PostgreSQL', () => {
  it('a database with tables outside the series opens with its rows kept, the series recorded whole', async () => {
    const db = await freshDatabase();
    const old = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      expect(await migratePostgres(old, firstMigrations(SERIES.postgres, 2))).toEqual(['001_init.sql', '002_charge_keep_until.sql']);
      await old.query(OLD_GLOSSARIES('BIGINT'));
      await old.query(OLD_JOBS('BIGINT', 'DOUBLE PRECISION', false));
      await old.query('INSERT INTO glossaries (id, owner, name, created_at, dictionaries) VALUES ($1, $2, $3, $4, $5)', Object.values(toRow(glossary)));
      const values = rowValues(job).slice(0, JOB_COLUMNS_WITHOUT_GLOSSARY.split(',').length);
      await old.query(`INSERT INTO document_jobs (${JOB_COLUMNS_WITHOUT_GLOSSARY}) VALUES (${values.map((_v, i) => `$${i + 1}`).join(', ')})`, values);
      await old.end();

      const storage = openPostgres(db.url);
      try {
        await storage.ready();
        const { rows } = await storage.pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
        expect(rows.map((r) => r.version)).toEqual(migrationFiles(SERIES.postgres).map((f) => f.version));
        expect(await new PgGlossaryStore(storage).get('key-1', 'g-1')).toEqual(glossary);
        const jobs = new PgJobStore(storage);
        expect(await jobs.get(job.id)).toEqual(job);
        const withGlossary = { ...job, id: 'b'.repeat(32), glossary: 'g-1' };
        await jobs.insert(withGlossary);
        expect(await jobs.get(withGlossary.id)).toEqual(withGlossary);
        // A second process finds everything applied.
        expect(await migratePostgres(storage.pool)).toEqual([]);
      } finally {
        await storage.close();
      }
    } finally {
      await old.end().catch(() => undefined);
      await db.drop();
    }
  });
});
