// Opens the account store for a command (same database as the server) and closes it afterwards.
import { AccountsUnavailable } from '../accounts/errors.ts';
import { Accounts } from '../accounts/accounts.ts';
import { systemClock } from '../accounts/clock.ts';
import { existsSync } from 'node:fs';
import { accountStore } from '../accounts/index.ts';
import type { Config } from '../config/env.ts';
import { databaseFile, openStorage, type Storage } from '../storage/index.ts';
import { commandConfig } from './command-config.ts';
import { CliError, type CliIo } from './io.ts';

/**
 * `create`: the command may be the first to use the SQLite file (keys create, plans set). The others read or change
 * what must already be there, so a missing file is a mistyped DRAGOMAN_DATA_DIR, said as such rather than answered
 * from a fresh, empty database.
 */
export async function withAccounts<T>(
  io: CliIo,
  fn: (accounts: Accounts, config: Config, storage: Storage) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const config = commandConfig(io);
  if (!config.databaseUrl && !options.create && !existsSync(databaseFile(config))) {
    throw new CliError(
      `no account database at ${databaseFile(config)}: check DRAGOMAN_DATA_DIR (the server creates the file when it first starts, as does "dragoman keys create")`,
    );
  }
  const storage = await openStorage(config);
  const store = accountStore(storage, config);
  try {
    return await fn(new Accounts(store, systemClock), config, storage);
  } catch (err) {
    // PostgreSQL unreachable (AccountsUnavailable from the store): a plain message, not a stack.
    if (err instanceof AccountsUnavailable) {
      throw new CliError(`cannot reach the account database (DRAGOMAN_DATABASE_URL); try again when it is back`);
    }
    throw err;
  } finally {
    await store.close();
    await storage.close();
  }
}
