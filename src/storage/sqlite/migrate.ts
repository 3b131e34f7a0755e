// Applies the numbered files of ./migrations (001_*.sql, 002_*.sql, ...) that the database has not seen yet,
// each in its own transaction, and records them in schema_migrations. Every table of every store is in this one
// series (src/storage/README.md).
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';
import { migrationFiles } from '../migration-files.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export function migrate(db: Database.Database, dir = MIGRATIONS_DIR): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const done = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
  );
  const applied: string[] = [];
  for (const { version, name, sql, skipWhen } of migrationFiles(dir)) {
    if (done.has(version)) continue;
    // IMMEDIATE: a second process starting at the same moment waits instead of applying the file twice.
    db.transaction(() => {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(version);
      if (again) return;
      if (!(skipWhen && db.prepare(skipWhen).get() !== undefined)) db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(version, name, Date.now());
      applied.push(name);
    }).immediate();
  }
  return applied;
}
