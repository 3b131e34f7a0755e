// Glossaries on the process's SQLite connection (src/storage/sqlite), which the accounts use too; the table is made
// by the storage layer's migrations.
import type Database from 'better-sqlite3';
import type { SqliteStorage } from '../storage/index.ts';
import { fromRow, toRow, type GlossaryRow, type GlossaryStore } from './store.ts';
import type { Glossary } from './types.ts';

export class SqliteGlossaryStore implements GlossaryStore {
  private readonly db: Database.Database;
  private readonly stmt;

  constructor(storage: SqliteStorage) {
    this.db = storage.db;
    const db = this.db;
    this.stmt = {
      insert: db.prepare('INSERT INTO glossaries (id, owner, name, created_at, dictionaries) VALUES (@id, @owner, @name, @created_at, @dictionaries)'),
      update: db.prepare('UPDATE glossaries SET name = @name, dictionaries = @dictionaries WHERE id = @id AND owner = @owner'),
      get: db.prepare('SELECT * FROM glossaries WHERE owner = ? AND id = ?'),
      list: db.prepare('SELECT * FROM glossaries WHERE owner = ? ORDER BY created_at, id'),
      count: db.prepare('SELECT COUNT(*) AS n FROM glossaries WHERE owner = ?'),
      delete: db.prepare('DELETE FROM glossaries WHERE owner = ? AND id = ?'),
    };
  }

  async insert(g: Glossary): Promise<void> {
    this.stmt.insert.run(toRow(g));
  }

  async update(g: Glossary): Promise<boolean> {
    return this.stmt.update.run(toRow(g)).changes > 0;
  }

  async get(owner: string, id: string): Promise<Glossary | undefined> {
    const row = this.stmt.get.get(owner, id) as GlossaryRow | undefined;
    return row && fromRow(row);
  }

  async list(owner: string): Promise<Glossary[]> {
    return (this.stmt.list.all(owner) as GlossaryRow[]).map(fromRow);
  }

  async count(owner: string): Promise<number> {
    return (this.stmt.count.get(owner) as { n: number }).n;
  }

  async delete(owner: string, id: string): Promise<boolean> {
    return this.stmt.delete.run(owner, id).changes > 0;
  }

  /** Nothing of its own to release: the connection belongs to the storage layer. */
  async close(): Promise<void> {}
}
