// Opens the account store the configuration selects. SQLite at DRAGOMAN_DATA_DIR/dragoman.db unless
// DRAGOMAN_DATABASE_URL names another backend.
import { join } from 'node:path';
import type { Config } from '../config/env.ts';
import { defaultPlanLimits } from './plans.ts';
import { SqliteAccountStore } from './sqlite/store.ts';
import type { AccountStore } from './store.ts';

export function databaseFile(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'dragoman.db');
}

export async function openAccountStore(config: Config): Promise<AccountStore> {
  const defaults = defaultPlanLimits(config.ratePreset);
  if (config.databaseUrl) {
    // PostgreSQL backend: registered here when it lands (src/accounts/postgres/).
    throw new Error(`DRAGOMAN_DATABASE_URL is set but no PostgreSQL account store is available in this build`);
  }
  return new SqliteAccountStore(databaseFile(config), defaults);
}
