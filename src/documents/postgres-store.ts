// Job records on the process's PostgreSQL pool (src/storage/postgres, DRAGOMAN_DATABASE_URL), shared by every
// replica; the table is made by the storage layer's migrations. Each transition is one conditional UPDATE, atomic
// across replicas.
import type pg from 'pg';
import { AccountsUnavailable } from '../accounts/errors.ts';
import type { PgStorage } from '../storage/index.ts';
import { isUnavailable } from '../storage/postgres/unavailable.ts';
import type { ChargeState, JobRecord } from './job.ts';
import { COLUMNS, fromRow, rowValues, type JobRow } from './job-table.ts';
import type { JobPage, JobStore, JobUpdate } from './store.ts';

export class PgJobStore implements JobStore {
  constructor(private readonly storage: PgStorage) {}

  /** A database that cannot be reached is the 503 the accounts answer too (a retry is safe: nothing was done). */
  private async query(sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
    try {
      await this.storage.ready();
      return await this.storage.pool.query(sql, values);
    } catch (err) {
      throw isUnavailable(err) ? new AccountsUnavailable() : err;
    }
  }

  async insert(job: JobRecord): Promise<void> {
    const params = COLUMNS.split(',').map((_c, i) => `$${i + 1}`).join(', ');
    await this.query(`INSERT INTO document_jobs (${COLUMNS}) VALUES (${params})`, rowValues(job));
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const r = await this.query('SELECT * FROM document_jobs WHERE id = $1', [id]);
    return r.rows[0] ? fromRow(r.rows[0] as JobRow) : undefined;
  }

  async setChargeState(id: string, from: ChargeState, to: ChargeState, charge?: string): Promise<boolean> {
    const r = await this.query('UPDATE document_jobs SET charge_state = $1, charge = COALESCE($4, charge) WHERE id = $2 AND charge_state = $3', [to, id, from, charge ?? null]);
    return r.rowCount === 1;
  }

  async claim(id: string, nowMs: number, leaseMs: number): Promise<boolean> {
    const r = await this.query(
      `UPDATE document_jobs SET lease_until = $1 WHERE id = $2 AND lease_until < $3 AND status IN ('queued', 'translating')`,
      [nowMs + leaseMs, id, nowMs],
    );
    return r.rowCount === 1;
  }

  async renew(id: string, leaseUntil: number): Promise<void> {
    await this.query('UPDATE document_jobs SET lease_until = $1 WHERE id = $2', [leaseUntil, id]);
  }

  async release(id: string): Promise<void> {
    await this.query('UPDATE document_jobs SET lease_until = 0 WHERE id = $1', [id]);
  }

  async update(id: string, fields: JobUpdate): Promise<void> {
    await this.query(
      'UPDATE document_jobs SET status = COALESCE($1, status), progress = COALESCE($2, progress), error = COALESCE($3, error), ' +
        'finished_at = COALESCE($5, finished_at) WHERE id = $4',
      [fields.status ?? null, fields.progress ?? null, fields.error ?? null, id, fields.finishedAt ?? null],
    );
  }

  async list(keyId: string, { nowMs, limit, after }: { nowMs: number; limit: number; after: { createdAt: number; id: string } | undefined }): Promise<JobPage> {
    const r = after
      ? await this.query(
          'SELECT * FROM document_jobs WHERE key_id = $1 AND expires_at > $2 AND (created_at < $3 OR (created_at = $3 AND id < $4)) ' +
            'ORDER BY created_at DESC, id DESC LIMIT $5',
          [keyId, nowMs, after.createdAt, after.id, limit],
        )
      : await this.query('SELECT * FROM document_jobs WHERE key_id = $1 AND expires_at > $2 ORDER BY created_at DESC, id DESC LIMIT $3', [keyId, nowMs, limit]);
    return (r.rows as JobRow[]).map(fromRow);
  }

  async orphans(nowMs: number): Promise<JobRecord[]> {
    const r = await this.query(
      `SELECT * FROM document_jobs WHERE status IN ('queued', 'translating') AND lease_until < $1 ORDER BY created_at`,
      [nowMs],
    );
    return (r.rows as JobRow[]).map(fromRow);
  }

  async unrefunded(): Promise<JobRecord[]> {
    const r = await this.query(`SELECT * FROM document_jobs WHERE status = 'error' AND charge_state <> 'refunded'`);
    return (r.rows as JobRow[]).map(fromRow);
  }

  async expired(clockMs: number): Promise<JobRecord[]> {
    const r = await this.query('SELECT * FROM document_jobs WHERE expires_at <= $1', [clockMs]);
    return (r.rows as JobRow[]).map(fromRow);
  }

  async delete(id: string): Promise<void> {
    await this.query('DELETE FROM document_jobs WHERE id = $1', [id]);
  }

  /** Nothing of its own to release: the pool belongs to the storage layer. */
  async close(): Promise<void> {}
}
