// Glossaries in the PostgreSQL database the accounts use (DRAGOMAN_DATABASE_URL): replicas share them like keys.
// The table is made on first use (CREATE ... IF NOT EXISTS is safe when replicas start together: a unique-violation
// of the catalog is retried once).
import pg from 'pg';
import { withVerifiedSslMode } from '../accounts/postgres/connection.ts';
import { databaseUnavailable, isUnavailable } from '../accounts/postgres/unavailable.ts';
import { fromRow, toRow, type GlossaryRow, type GlossaryStore } from './store.ts';
import type { Glossary } from './types.ts';

const SCHEMA = `CREATE TABLE IF NOT EXISTS glossaries (
  id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, created_at BIGINT NOT NULL, dictionaries TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS glossaries_owner ON glossaries (owner, created_at)`;

export class PgGlossaryStore implements GlossaryStore {
  private readonly pool: pg.Pool;
  private ready: Promise<void> | undefined;

  constructor(url: string) {
    this.pool = new pg.Pool({ connectionString: withVerifiedSslMode(url), max: 4, connectionTimeoutMillis: 2000 });
    this.pool.on('error', () => {}); // an idle connection lost: the next query reconnects
  }

  private async query<T extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<T>> {
    try {
      this.ready ??= this.pool.query(SCHEMA).then(() => undefined, async (err: unknown) => {
        if ((err as { code?: string }).code === '23505') return void (await this.pool.query(SCHEMA));
        throw err;
      });
      await this.ready.catch((err: unknown) => {
        this.ready = undefined;
        throw err;
      });
      return await this.pool.query<T>(sql, params);
    } catch (err) {
      if (isUnavailable(err)) throw databaseUnavailable();
      throw err;
    }
  }

  async insert(g: Glossary): Promise<void> {
    const r = toRow(g);
    await this.query('INSERT INTO glossaries (id, owner, name, created_at, dictionaries) VALUES ($1, $2, $3, $4, $5)', [r.id, r.owner, r.name, r.created_at, r.dictionaries]);
  }

  async update(g: Glossary): Promise<boolean> {
    const r = toRow(g);
    return ((await this.query('UPDATE glossaries SET name = $3, dictionaries = $4 WHERE owner = $1 AND id = $2', [r.owner, r.id, r.name, r.dictionaries])).rowCount ?? 0) > 0;
  }

  async get(owner: string, id: string): Promise<Glossary | undefined> {
    const row = (await this.query<GlossaryRow>('SELECT * FROM glossaries WHERE owner = $1 AND id = $2', [owner, id])).rows[0];
    return row && fromRow(row);
  }

  async list(owner: string): Promise<Glossary[]> {
    return (await this.query<GlossaryRow>('SELECT * FROM glossaries WHERE owner = $1 ORDER BY created_at, id', [owner])).rows.map(fromRow);
  }

  async count(owner: string): Promise<number> {
    return Number((await this.query<{ n: string }>('SELECT COUNT(*) AS n FROM glossaries WHERE owner = $1', [owner])).rows[0]!.n);
  }

  async delete(owner: string, id: string): Promise<boolean> {
    return ((await this.query('DELETE FROM glossaries WHERE owner = $1 AND id = $2', [owner, id])).rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
