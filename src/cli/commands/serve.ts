// dragoman serve: the HTTP server (what `npm start` runs). Stops cleanly on SIGINT/SIGTERM.
import { mkdir, stat } from 'node:fs/promises';
import { Accounts } from '../../accounts/accounts.ts';
import { systemClock } from '../../accounts/clock.ts';
import { KeyOperations } from '../../accounts/key-operations.ts';
import type { AccountStore } from '../../accounts/store.ts';
import { type Config, ConfigError } from '../../config/env.ts';
import { DEMO_INSTALL_HINT, DEMO_MODELS, demoInfo, demoModelsDir } from '../../models/demo.ts';
import { commandConfig } from '../command-config.ts';
import { hugePageBytes } from '../../observability/huge-pages.ts';
import { CliError, outsideFaultCode, type CliIo } from '../io.ts';
import { parse, syntax } from '../syntax.ts';

export const summary = 'run the HTTP server (DRAGOMAN_HOST:DRAGOMAN_PORT)';

const SERVE = syntax({
  command: 'serve',
  about: 'Run the HTTP server on DRAGOMAN_HOST:DRAGOMAN_PORT (default 127.0.0.1:8080) with the models in\n' +
    'DRAGOMAN_MODELS_DIR (default ./models); SIGINT or SIGTERM stops it after the requests in flight.',
  flags: {},
  notes: ['Every setting is a DRAGOMAN_* environment variable (README, "Configuration").'],
});

/** -1 = still running (the process lives on in the server). */
export async function run(args: string[], io: CliIo): Promise<number> {
  parse(SERVE, args);
  const given = commandConfig(io);
  // A mistyped models path is the commonest reason for "0 models": say so rather than start silently empty.
  const models = await stat(given.modelsDir).catch(() => undefined);
  if (models && !models.isDirectory()) throw new CliError(`DRAGOMAN_MODELS_DIR ${given.modelsDir} is not a folder`, 2);
  // No model at all (a fresh clone): the repository's small models, served as a demo that says so.
  await mkdir(given.dataDir, { recursive: true }).catch(() => undefined);
  const demoDir = await demoModelsDir(given).catch(() => undefined);
  const config = demoDir ? { ...given, modelsDir: demoDir } : given;
  if (demoDir) io.err(`dragoman: no model in ${given.modelsDir}: serving the demo models ${DEMO_MODELS.join(' and ')} (tiny, simple sentences only); ${DEMO_INSTALL_HINT}`);
  else if (!models) io.err(`dragoman: DRAGOMAN_MODELS_DIR ${given.modelsDir} does not exist: starting with no models (README, "Models")`);
  // Loaded here, not at the top: the engine takes seconds to import, which `serve --help` or a bad argument need not wait.
  const { startApp } = await import('../../app.ts');
  const app = await startApp(config, demoDir ? { demo: demoInfo() } : {}).catch((err: unknown) => {
    throw startFailure(err, config);
  });
  await printFirstKey(app.store, config, io);
  const huge = hugePageBytes();
  // Before the listening line, which is what people (and scripts) wait for.
  for (const m of app.engine.models().filter((m) => m.status !== 'ok')) {
    io.err(`dragoman: model ${m.name} (${m.path}) not loaded (${m.status}): ${m.problem ?? 'no reason given'}`);
  }
  // Bound to every address (0.0.0.0, ::), the line says so; app.url is how this machine itself reaches it.
  const { port, protocol } = new URL(app.url);
  const where = config.host === '0.0.0.0' ? `0.0.0.0:${port}, all addresses (${protocol}//127.0.0.1:${port} from this machine)`
    : config.host === '::' ? `[::]:${port}, all addresses (${protocol}//[::1]:${port} from this machine)` : app.url;
  io.err(`dragoman: listening on ${where} (models: ${app.engine.models().filter((m) => m.status === 'ok').length} loaded from ${config.modelsDir}, ` +
    `${config.databaseUrl ? 'accounts: PostgreSQL (DRAGOMAN_DATABASE_URL)' : `data: ${config.dataDir}`}${huge === undefined ? '' : `, huge pages: ${Math.round(huge / 2 ** 20)} MB`})`);
  let stopping = false;
  const stop = (signal: string) => {
    // A second signal (an impatient operator, a supervisor repeating itself) must not kill what is finishing.
    if (stopping) {
      app.server.log.warn({ signal }, 'already shutting down: in-flight requests are finishing');
      return;
    }
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
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return -1;
}

/** Addresses only this machine can reach: a key printed for them is seen by whoever started the server, nobody else. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || /^::ffff:127\./.test(h);
}

/**
 * The first start of a server that only this machine can reach, on an account database without a single key: one
 * key is made and its secret printed on standard output, once (never logged), so `npm start` alone gives a working
 * translator. On any other address, or on PostgreSQL, nobody is handed a key: `dragoman keys create` makes them.
 * The key is in the audit log as made by `first-start`.
 */
async function printFirstKey(store: AccountStore, config: Config, io: CliIo): Promise<void> {
  // Only on the local SQLite file: a PostgreSQL database is shared by replicas (two first starts would make two keys)
  // and may be away at start, which must not hold the server back.
  if (config.databaseUrl !== undefined || !isLoopbackHost(config.host) || (await store.listKeys()).length > 0) return;
  const { key, secret } = await new KeyOperations(new Accounts(store, systemClock), 'first-start').create({ plan: 'pro', name: 'first start' });
  io.out('');
  io.out(`dragoman: the account database had no key, so this first start made one (id ${key.id}, plan pro). Your API key, shown only this once:`);
  io.out('');
  io.out(`    ${secret}`);
  io.out('');
  io.out('dragoman: send it as the X-API-Key header, or paste it into the web page. More keys: npx dragoman keys create --help');
  io.out('');
}

/**
 * A start that fails for a reason outside the program (the port is taken, the host is not this machine's, the data
 * folder cannot be used, the database refuses) is one line saying what to change; only a bug keeps its stack.
 */
function startFailure(err: unknown, config: Config): unknown {
  if (err instanceof ConfigError) return new CliError(err.message, 2);
  const code = outsideFaultCode(err);
  if (code === undefined) return err;
  const message = (err as Error).message;
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE') return new CliError(`cannot listen on ${where}: the port is in use (set DRAGOMAN_PORT)`, 1);
  if (code === 'EACCES' && /listen/.test(message)) return new CliError(`cannot listen on ${where}: permission denied (ports below 1024 need privileges; set DRAGOMAN_PORT)`, 1);
  if (['ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL'].includes(code)) {
    return new CliError(`cannot listen on ${where}: ${config.host} is not an address of this machine (set DRAGOMAN_HOST, e.g. 127.0.0.1 or 0.0.0.0)`, 1);
  }
  if (!config.databaseUrl && (/^E[A-Z]+$/.test(code) || code.startsWith('SQLITE_'))) {
    return new CliError(`cannot start: ${message} (is DRAGOMAN_DATA_DIR ${config.dataDir} a writable folder?)`, 1);
  }
  return new CliError(`cannot start: ${message}`, 1);
}
