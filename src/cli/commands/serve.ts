// dragoman serve: the HTTP server (what `npm start` runs). Stops cleanly on SIGINT/SIGTERM.
import { stat } from 'node:fs/promises';
import { startApp } from '../../app.ts';
import { ConfigError, loadConfig } from '../../config/env.ts';
import { hugePageBytes } from '../../observability/huge-pages.ts';
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
  // A mistyped models path is the commonest reason for "0 models": say so rather than start silently empty.
  const models = await stat(config.modelsDir).catch(() => undefined);
  if (models && !models.isDirectory()) throw new CliError(`DRAGOMAN_MODELS_DIR ${config.modelsDir} is not a folder`, 2);
  if (!models) io.err(`dragoman: DRAGOMAN_MODELS_DIR ${config.modelsDir} does not exist: starting with no models (README, "Models")`);
  const app = await startApp(config);
  const huge = hugePageBytes();
  // Before the listening line, which is what people (and scripts) wait for.
  for (const m of app.engine.models().filter((m) => m.status !== 'ok')) {
    io.err(`dragoman: model ${m.name} (${m.path}) not loaded (${m.status}): ${m.problem ?? 'no reason given'}`);
  }
  io.err(`dragoman: listening on ${app.url} (models: ${app.engine.models().filter((m) => m.status === 'ok').length} loaded from ${config.modelsDir}, ` +
    `data: ${config.dataDir}${huge === undefined ? '' : `, huge pages: ${Math.round(huge / 2 ** 20)} MB`})`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Graceful: stop accepting, let in-flight requests finish (new ones on kept-alive connections get 503), then
    // close the engine and the database. After DRAGOMAN_SHUTDOWN_TIMEOUT_MS the remaining connections are cut so the
    // database is still closed properly; if even that hangs, exit hard a little later.
    app.server.log.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    const cut = setTimeout(() => {
      app.server.log.warn({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown timeout: closing the connections still open');
      app.server.server.closeAllConnections();
    }, config.shutdownTimeoutMs);
    const hard = setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 10_000);
    cut.unref();
    hard.unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return -1;
}
