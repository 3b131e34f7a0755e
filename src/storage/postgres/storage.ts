// The PostgreSQL database of DRAGOMAN_DATABASE_URL: one pool per process, shared by the account, glossary and
// document job stores, with every table made by the one numbered series in ./migrations. The migrations run once,
// at start or, when the database was away then, before the first query that reaches it.
import pg from 'pg';
import { migrate } from './migrate.ts';
import { types, withVerifiedSslMode, type PgStoreOptions } from './connection.ts';

export interface PgStorage {
  readonly kind: 'postgres';
  readonly pool: pg.Pool;
  /** Whether the migrations have been applied (or found applied) by this process. */
  readonly migrated: boolean;
  /** Applies the pending migrations once; a failed attempt (database away) is tried again by the next call. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function openPostgres(url: string, options: PgStoreOptions = {}): PgStorage {
  const pool = new pg.Pool({
    connectionString: withVerifiedSslMode(url),
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 2000,
    query_timeout: options.queryTimeoutMs ?? 10_000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'dragoman',
    types,
  });
  // An idle pooled connection that dies (database restart) is dropped by the pool; without a listener the
  // 'error' event would crash the process.
  pool.on('error', () => undefined);
  let migrated = false;
  let migrating: Promise<void> | null = null;
  let closed = false;
  return {
    kind: 'postgres',
    pool,
    get migrated() {
      return migrated;
    },
    async ready() {
      if (migrated) return;
      migrating ??= migrate(pool)
        .then(() => {
          migrated = true;
        })
        .finally(() => {
          migrating = null;
        });
      await migrating;
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
