// The configuration a command runs with, read from its environment the way the server reads it.
import { ConfigError, loadConfig, type Config } from '../config/env.ts';
import { CliError, type CliIo } from './io.ts';

/** A bad DRAGOMAN_* setting is the user's to fix: its message, exit code 2, no stack. */
export function commandConfig(io: CliIo): Config {
  try {
    return loadConfig(io.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
}
