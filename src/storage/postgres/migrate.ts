// Applies the numbered files of ./migrations that the database has not seen yet, each in its own
// transaction, recorded in schema_migrations (same scheme as the SQLite backend). The whole run holds a
// session advisory lock, so replicas starting together apply each file once: the others wait, then find
// it recorded. Every table of every store is in this one series (src/storage/README.md).
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { migrationFiles } from '../migration-files.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
/** pg_advisory_lock key of the migration run ('drgm' + 'mig'). */
export const MIGRATION_LOCK = 7_233_558_271_133;

export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = migrationFiles(dir);
  const client = await pool.connect();
  const applied: string[] = [];
  let broken = false;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      const done = new Set(
        (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
      );
      for (const { version, name, sql, skipWhen } of files) {
        if (done.has(version)) continue;
        await client.query('BEGIN');
        try {
          if (!(skipWhen && (await client.query(skipWhen)).rowCount)) await client.query(sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            version,
            name,
            Date.now(),
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
        applied.push(name);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {
        broken = true;
      });
    }
  } catch (err) {
    broken = true;
    throw err;
  } finally {
    // A connection that failed mid-run is not given back to the pool (its lock dies with it).
    client.release(broken);
  }
  return applied;
}
