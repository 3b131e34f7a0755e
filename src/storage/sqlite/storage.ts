// The data directory's SQLite database (dragoman.db): one connection per process, shared by the account, glossary
// and document job stores, with every table made by the one numbered series in ./migrations.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { migrate } from './migrate.ts';
import { openDatabase } from './open.ts';

export interface SqliteStorage {
  readonly kind: 'sqlite';
  readonly file: string;
  readonly db: Database.Database;
  close(): Promise<void>;
}

export function openSqlite(file: string): SqliteStorage {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = openDatabase(file); // never freed by the collector (open.ts): pragmas set with exec()
  // WAL: the CLI and the server use the same file at once.
  db.exec('PRAGMA journal_mode = WAL');
  // NORMAL (in WAL mode): a commit is in the OS once it returns, so it survives a process crash or SIGKILL;
  // only a power loss / kernel crash can drop the last commits. FULL would fsync every charge and rate-limit
  // hit on the event loop: measured ~10x fewer requests per second (npm run bench:api).
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON');
  migrate(db);
  return {
    kind: 'sqlite',
    file,
    db,
    close: async () => {
      if (db.open) db.close();
    },
  };
}
