// Stores on a database of their own, for tests that use one store alone: the storage layer (src/storage) opens the
// connection and runs the migrations, and closing the store closes that connection too.
import type { PgStoreOptions } from '../src/storage/postgres/connection.ts';
import { openPostgres, openSqlite, openStorage, type PgStorage, type SqliteStorage } from '../src/storage/index.ts';
import { accountStore } from '../src/accounts/index.ts';
import type { AccountStore } from '../src/accounts/store.ts';
import type { Config } from '../src/config/env.ts';
import { jobStore, type JobStore } from '../src/documents/index.ts';
import { PgAccountStore } from '../src/accounts/postgres/store.ts';
import { SqliteAccountStore } from '../src/accounts/sqlite/store.ts';
import type { Limits, PlanName } from '../src/accounts/types.ts';
import { SqliteGlossaryStore } from '../src/glossaries/sqlite.ts';
import { SqliteJobStore } from '../src/documents/sqlite-store.ts';

type Defaults = Record<PlanName, Limits>;

function owning<S extends { close(): Promise<void> }>(store: S, storage: { close(): Promise<void> }): S {
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await storage.close();
  };
  return store;
}

export function sqliteAccountStore(file: string, defaults: Defaults): SqliteAccountStore {
  const storage = openSqlite(file);
  return owning(new SqliteAccountStore(storage, defaults), storage);
}

export function pgAccountStore(url: string, defaults: Defaults, options?: PgStoreOptions): PgAccountStore {
  const storage = openPostgres(url, options);
  return owning(new PgAccountStore(storage, defaults), storage);
}

export function sqliteGlossaryStore(file: string): SqliteGlossaryStore {
  const storage = openSqlite(file);
  return owning(new SqliteGlossaryStore(storage), storage);
}

export function sqliteJobStore(file: string): SqliteJobStore {
  const storage = openSqlite(file);
  return owning(new SqliteJobStore(storage), storage);
}

export type { PgStorage, SqliteStorage };

/** The account store the configuration selects (SQLite in its data directory, or PostgreSQL), as the server opens it. */
export async function configuredAccountStore(config: Config): Promise<AccountStore> {
  const storage = await openStorage(config);
  return owning(accountStore(storage, config), storage);
}

/** The document job store the configuration selects, as the server opens it. */
export async function configuredJobStore(config: Pick<Config, 'dataDir' | 'databaseUrl'>): Promise<JobStore> {
  const storage = await openStorage(config);
  return owning(jobStore(storage), storage);
}
