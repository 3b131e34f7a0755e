// Glossaries in the SQLite database file the accounts use (WAL, so the CLI and the server share it).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from '../accounts/sqlite/open.ts';
import { fromRow, toRow, type GlossaryRow, type GlossaryStore } from './store.ts';
import type { Glossary } from './types.ts';

export class SqliteGlossaryStore implements GlossaryStore {
  private readonly db: Database.Database;
  private readonly stmt;

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    // Never freed by the collector, pragmas set with exec() (accounts/sqlite/open.ts says why).
    this.db = openDatabase(file);
    this.db.exec('PRAGMA journal_mode = WAL');
    this.db.exec('PRAGMA synchronous = NORMAL');
    this.db.exec('PRAGMA busy_timeout = 5000');
    this.db.exec(`CREATE TABLE IF NOT EXISTS glossaries (
      id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL, dictionaries TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS glossaries_owner ON glossaries (owner, created_at)`);
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

  async close(): Promise<void> {
    this.db.close();
  }
}
