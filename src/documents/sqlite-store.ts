// Job records on the process's SQLite connection (src/storage/sqlite: dragoman.db, beside the accounts); the table is
// made by the storage layer's migrations.
import type Database from 'better-sqlite3';
import type { SqliteStorage } from '../storage/index.ts';
import type { ChargeState, JobRecord } from './job.ts';
import type { JobPage, JobStore, JobUpdate } from './store.ts';
import { COLUMNS, fromRow, rowValues, type JobRow } from './job-table.ts';

export class SqliteJobStore implements JobStore {
  private readonly db: Database.Database;
  /** Each statement prepared once and kept: the database never leaves one to the collector (storage/sqlite/open.ts). */
  private readonly statements = new Map<string, Database.Statement>();

  constructor(storage: SqliteStorage) {
    this.db = storage.db;
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

  async update(id: string, fields: JobUpdate): Promise<void> {
    this
      .statement(
        'UPDATE document_jobs SET status = COALESCE(?, status), progress = COALESCE(?, progress), error = COALESCE(?, error), ' +
          'finished_at = COALESCE(?, finished_at) WHERE id = ?',
      )
      .run(fields.status ?? null, fields.progress ?? null, fields.error ?? null, fields.finishedAt ?? null, id);
  }

  async list(keyId: string, { nowMs, limit, after }: { nowMs: number; limit: number; after: { createdAt: number; id: string } | undefined }): Promise<JobPage> {
    const rows = after
      ? this
          .statement(
            'SELECT * FROM document_jobs WHERE key_id = ? AND expires_at > ? AND (created_at < ? OR (created_at = ? AND id < ?)) ' +
              'ORDER BY created_at DESC, id DESC LIMIT ?',
          )
          .all(keyId, nowMs, after.createdAt, after.createdAt, after.id, limit)
      : this.statement('SELECT * FROM document_jobs WHERE key_id = ? AND expires_at > ? ORDER BY created_at DESC, id DESC LIMIT ?').all(keyId, nowMs, limit);
    return (rows as JobRow[]).map(fromRow);
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

  /** Nothing of its own to release: the connection belongs to the storage layer. */
  async close(): Promise<void> {}
}
