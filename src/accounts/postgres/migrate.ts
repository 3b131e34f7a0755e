// Applies the numbered files of ./migrations that the database has not seen yet, each in its own
// transaction, recorded in schema_migrations (same scheme as the SQLite backend). The whole run holds a
// session advisory lock, so replicas starting together apply each file once: the others wait, then find
// it recorded.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
/** pg_advisory_lock key of the migration run ('drgm' + 'mig'). */
export const MIGRATION_LOCK = 7_233_558_271_133;

export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = readdirSync(dir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort();
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
      for (const file of files) {
        const version = Number.parseInt(file, 10);
        if (done.has(version)) continue;
        const sql = readFileSync(dir + file, 'utf8');
        await client.query('BEGIN');
        try {
          await client.query(sql);
          await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            version,
            file,
            Date.now(),
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw err;
        }
        applied.push(file);
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
