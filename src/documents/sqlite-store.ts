// Job records in the data directory's SQLite database (dragoman.db, beside the accounts, on a connection of
// their own).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from '../accounts/sqlite/open.ts';
import type { ChargeState, JobRecord, JobStatus } from './job.ts';
import type { JobStore } from './store.ts';
import { COLUMNS, createJobTable, fromRow, rowValues, type JobRow } from './job-table.ts';

const SCHEMA = `${createJobTable({ integer: 'INTEGER', real: 'REAL' })}
CREATE INDEX IF NOT EXISTS document_jobs_open ON document_jobs (status, lease_until);`;

export class SqliteJobStore implements JobStore {
  private readonly db: Database.Database;
  /** Each statement prepared once and kept: the database never leaves one to the collector (accounts/sqlite/open.ts). */
  private readonly statements = new Map<string, Database.Statement>();

  constructor(file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = openDatabase(file);
    this.db.exec('PRAGMA journal_mode = WAL');
    this.db.exec('PRAGMA synchronous = NORMAL');
    this.db.exec('PRAGMA busy_timeout = 5000');
    this.db.exec(SCHEMA);
    // A database made before jobs could carry a glossary gets the column (SQLite has no ADD COLUMN IF NOT EXISTS).
    const columns = this.statement('PRAGMA table_info(document_jobs)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'glossary')) this.db.exec('ALTER TABLE document_jobs ADD COLUMN glossary TEXT');
    if (!columns.some((c) => c.name === 'memory')) this.db.exec('ALTER TABLE document_jobs ADD COLUMN memory TEXT');
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  async insert(job: JobRecord): Promise<void> {
    this.statement(`INSERT INTO document_jobs (${COLUMNS}) VALUES (${COLUMNS.split(',').map(() => '?').join(', ')})`).run(...rowValues(job));
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const row = this.statement('SELECT * FROM document_jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row ? fromRow(row) : undefined;
  }

  async setChargeState(id: string, from: ChargeState, to: ChargeState, charge?: string): Promise<boolean> {
    return this.statement('UPDATE document_jobs SET charge_state = ?, charge = COALESCE(?, charge) WHERE id = ? AND charge_state = ?').run(to, charge ?? null, id, from).changes === 1;
  }

  async claim(id: string, nowMs: number, leaseMs: number): Promise<boolean> {
    return this
      .statement(`UPDATE document_jobs SET lease_until = ? WHERE id = ? AND lease_until < ? AND status IN ('queued', 'translating')`)
      .run(nowMs + leaseMs, id, nowMs).changes === 1;
  }

  async renew(id: string, leaseUntil: number): Promise<void> {
    this.statement('UPDATE document_jobs SET lease_until = ? WHERE id = ?').run(leaseUntil, id);
  }

  async release(id: string): Promise<void> {
    this.statement('UPDATE document_jobs SET lease_until = 0 WHERE id = ?').run(id);
  }

  async update(id: string, fields: { status?: JobStatus; progress?: number; error?: string }): Promise<void> {
    this
      .statement('UPDATE document_jobs SET status = COALESCE(?, status), progress = COALESCE(?, progress), error = COALESCE(?, error) WHERE id = ?')
      .run(fields.status ?? null, fields.progress ?? null, fields.error ?? null, id);
  }

  async orphans(nowMs: number): Promise<JobRecord[]> {
    const rows = this
      .statement(`SELECT * FROM document_jobs WHERE status IN ('queued', 'translating') AND lease_until < ? ORDER BY created_at`)
      .all(nowMs) as JobRow[];
    return rows.map(fromRow);
  }

  async unrefunded(): Promise<JobRecord[]> {
    return (this.statement(`SELECT * FROM document_jobs WHERE status = 'error' AND charge_state <> 'refunded'`).all() as JobRow[]).map(fromRow);
  }

  async expired(clockMs: number): Promise<JobRecord[]> {
    return (this.statement('SELECT * FROM document_jobs WHERE expires_at <= ?').all(clockMs) as JobRow[]).map(fromRow);
  }

  async delete(id: string): Promise<void> {
    this.statement('DELETE FROM document_jobs WHERE id = ?').run(id);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
