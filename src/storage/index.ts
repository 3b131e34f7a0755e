// Opens the database the configuration selects, once per process: SQLite at DRAGOMAN_DATA_DIR/dragoman.db, or
// PostgreSQL when DRAGOMAN_DATABASE_URL is set. The stores (accounts, glossaries, document jobs) are built over it by
// the composition root (src/app.ts) and the CLI; it is closed after them.
import { join } from 'node:path';
import type { Config } from '../config/env.ts';
import { openPostgres, type PgStorage } from './postgres/storage.ts';
import { isUnavailable } from './postgres/unavailable.ts';
import { openSqlite, type SqliteStorage } from './sqlite/storage.ts';

export type { PgStorage } from './postgres/storage.ts';
export type { SqliteStorage } from './sqlite/storage.ts';
export { openPostgres } from './postgres/storage.ts';
export { openSqlite } from './sqlite/storage.ts';

export type Storage = SqliteStorage | PgStorage;

export function databaseFile(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'dragoman.db');
}

export async function openStorage(config: Pick<Config, 'dataDir' | 'databaseUrl'>): Promise<Storage> {
  if (!config.databaseUrl) return openSqlite(databaseFile(config));
  const storage = openPostgres(config.databaseUrl);
  try {
    await storage.ready(); // migrations, under an advisory lock
  } catch (err) {
    // Unreachable: start anyway; /ready says so and the first call that reaches it migrates.
    if (!isUnavailable(err)) {
      await storage.close();
      throw databaseRefusal(tlsAdvice(err as Error));
    }
  }
  return storage;
}

/**
 * The database answered but refused the start (password, database name, TLS, rights): a setting to fix, said in one
 * line by `serve` like a port in use — an error with a code of its own (PostgreSQL's SQLSTATE when it gave one).
 */
function databaseRefusal(err: Error): Error {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && !code.startsWith('ERR_')) return err;
  return Object.assign(new Error(`the account database (DRAGOMAN_DATABASE_URL) refused: ${err.message}`), { code: 'EDATABASE' });
}

/**
 * A refused server certificate is a setting to fix, not an outage to wait out (so the start fails), and node-postgres
 * differs from libpq here: its sslmode=require verifies the certificate like verify-full.
 */
function tlsAdvice(err: Error): Error {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (!/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|HOSTNAME|ERR_TLS/.test(code)) return err;
  return new Error(
    `PostgreSQL's TLS certificate was refused (${err.message}). node-postgres verifies it for sslmode=require as for ` +
      `verify-full: trust its CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem, or use sslmode=no-verify to encrypt without ` +
      `checking the certificate (docs/scaling.md).`,
  );
}
