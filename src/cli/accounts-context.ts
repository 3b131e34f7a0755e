// Opens the account store for a command (same database as the server) and closes it afterwards.
import { Accounts } from '../accounts/accounts.ts';
import { systemClock } from '../accounts/clock.ts';
import { openAccountStore } from '../accounts/index.ts';
import { ConfigError, loadConfig, type Config } from '../config/env.ts';
import { CliError, type CliIo } from './io.ts';

export async function withAccounts<T>(io: CliIo, fn: (accounts: Accounts, config: Config) => Promise<T>): Promise<T> {
  let config: Config;
  try {
    config = loadConfig(io.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
  const store = await openAccountStore(config);
  try {
    return await fn(new Accounts(store, systemClock), config);
  } catch (err) {
    // PostgreSQL unreachable (ApiError 503 from the store): a plain message, not a stack.
    if ((err as { status?: number }).status === 503) {
      throw new CliError(`cannot reach the account database (DRAGOMAN_DATABASE_URL); try again when it is back`);
    }
    throw err;
  } finally {
    await store.close();
  }
}
