// dragoman serve: the HTTP server (what `npm start` runs). Stops cleanly on SIGINT/SIGTERM.
import { startApp } from '../../app.ts';
import { ConfigError, loadConfig } from '../../config/env.ts';
import { CliError, parse, type CliIo } from '../io.ts';

export const summary = 'run the HTTP server (DRAGOMAN_HOST:DRAGOMAN_PORT)';

/** -1 = still running (the process lives on in the server). */
export async function run(args: string[], io: CliIo): Promise<number> {
  parse(args, {}, false);
  let config;
  try {
    config = loadConfig(io.env);
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, 2);
    throw err;
  }
  const app = await startApp(config);
  io.err(`dragoman: listening on ${app.url} (models: ${app.engine.models().filter((m) => m.status === 'ok').length} loaded from ${config.modelsDir}, data: ${config.dataDir})`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.server.log.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return -1;
}
