// Glossaries on the process's PostgreSQL pool (src/storage/postgres, DRAGOMAN_DATABASE_URL): replicas share them like
// keys. The table is made by the storage layer's migrations.
import type pg from 'pg';
import { AccountsUnavailable } from '../accounts/errors.ts';
import type { PgStorage } from '../storage/index.ts';
import { isUnavailable } from '../storage/postgres/unavailable.ts';
import { fromRow, toRow, type GlossaryRow, type GlossaryStore } from './store.ts';
import type { Glossary } from './types.ts';

export class PgGlossaryStore implements GlossaryStore {
  constructor(private readonly storage: PgStorage) {}

  /** A database that cannot be reached is the 503 the accounts answer too. */
  private async query<T extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<T>> {
    try {
      await this.storage.ready();
      return await this.storage.pool.query<T>(sql, params);
    } catch (err) {
      if (isUnavailable(err)) throw new AccountsUnavailable();
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

  /** Nothing of its own to release: the pool belongs to the storage layer. */
  async close(): Promise<void> {}
}
