// The account store over the database the configuration selects (src/storage): SQLite in the data directory, or
// PostgreSQL when DRAGOMAN_DATABASE_URL is set. The server and the CLI both build it here.
import type { Config } from '../config/env.ts';
import type { Storage } from '../storage/index.ts';
import { defaultPlanLimits } from './plans.ts';
import { PgAccountStore } from './postgres/store.ts';
import { SqliteAccountStore } from './sqlite/store.ts';
import type { AccountStore } from './store.ts';

export function accountStore(storage: Storage, config: Pick<Config, 'ratePreset'>): AccountStore {
  const defaults = defaultPlanLimits(config.ratePreset);
  return storage.kind === 'postgres' ? new PgAccountStore(storage, defaults) : new SqliteAccountStore(storage, defaults);
}
