// Job records in PostgreSQL (DRAGOMAN_DATABASE_URL), shared by every replica. The table is created on first use;
// each transition is one conditional UPDATE, atomic across replicas.
import pg from 'pg';
import { databaseUnavailable, isUnavailable } from '../accounts/postgres/unavailable.ts';
import type { ChargeState, JobRecord, JobStatus } from './job.ts';
import { COLUMNS, createJobTable, fromRow, rowValues, type JobRow } from './job-table.ts';
import type { JobStore } from './store.ts';

// One implicit transaction under an advisory lock: replicas starting together do not race on CREATE TABLE.
const SCHEMA = `SELECT pg_advisory_xact_lock(hashtext('dragoman.document_jobs'));
${createJobTable({ integer: 'BIGINT', real: 'DOUBLE PRECISION' })}
-- a table made before jobs could carry a glossary gets the column
ALTER TABLE document_jobs ADD COLUMN IF NOT EXISTS glossary TEXT;
ALTER TABLE document_jobs ADD COLUMN IF NOT EXISTS memory TEXT;`;

export class PgJobStore implements JobStore {
  private readonly pool: pg.Pool;
  private ready: Promise<void> | undefined;

  constructor(url: string) {
    this.pool = new pg.Pool({ connectionString: url, max: 4 });
    this.pool.on('error', () => undefined); // an idle connection dropped by the server; the next query reconnects
  }

  /** A database that cannot be reached is the 503 the accounts answer too (a retry is safe: nothing was done). */
  private async query(sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
    try {
      this.ready ??= this.pool.query(SCHEMA).then(() => undefined, (err: unknown) => {
        this.ready = undefined;
        throw err;
      });
      await this.ready;
      return await this.pool.query(sql, values);
    } catch (err) {
      throw isUnavailable(err) ? databaseUnavailable() : err;
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

  async update(id: string, fields: { status?: JobStatus; progress?: number; error?: string }): Promise<void> {
    await this.query(
      'UPDATE document_jobs SET status = COALESCE($1, status), progress = COALESCE($2, progress), error = COALESCE($3, error) WHERE id = $4',
      [fields.status ?? null, fields.progress ?? null, fields.error ?? null, id],
    );
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

  async close(): Promise<void> {
    await this.pool.end();
  }
}
