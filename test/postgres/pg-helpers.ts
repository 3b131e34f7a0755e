// PostgreSQL for tests: DRAGOMAN_TEST_DATABASE_URL names a server (.ci/run starts a throwaway cluster with
// scripts/pg-test-cluster.sh); each suite gets its own fresh database on it, dropped afterwards.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const TEST_DATABASE_URL = process.env.DRAGOMAN_TEST_DATABASE_URL || undefined;
export const CLUSTER_SCRIPT = fileURLToPath(new URL('../../scripts/pg-test-cluster.sh', import.meta.url));

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = '/' + db;
  return u.toString();
}

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new empty database on the server of `serverUrl` (default DRAGOMAN_TEST_DATABASE_URL). */
export async function freshDatabase(serverUrl = TEST_DATABASE_URL): Promise<FreshDatabase> {
  if (!serverUrl) throw new Error('DRAGOMAN_TEST_DATABASE_URL is not set');
  const name = 'dragoman_t_' + randomBytes(6).toString('hex');
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabase(serverUrl, name),
    async drop() {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/** A cluster of our own (for tests that stop and start the server): needs the PostgreSQL binaries. */
export interface OwnCluster {
  dir: string;
  url: string;
  pause(): void;
  resume(): void;
  stop(): void;
}

export function startOwnCluster(): OwnCluster {
  const out = execFileSync(CLUSTER_SCRIPT, ['start'], { encoding: 'utf8' });
  const dir = /PGTEST_DIR=(\S+)/.exec(out)?.[1];
  const url = /DRAGOMAN_TEST_DATABASE_URL=(\S+)/.exec(out)?.[1];
  if (!dir || !url) throw new Error(`pg-test-cluster.sh start said: ${out}`);
  return {
    dir,
    url,
    pause: () => execFileSync(CLUSTER_SCRIPT, ['pause', dir], { stdio: 'ignore' }),
    resume: () => execFileSync(CLUSTER_SCRIPT, ['resume', dir], { stdio: 'ignore' }),
    stop: () => execFileSync(CLUSTER_SCRIPT, ['stop', dir], { stdio: 'ignore' }),
  };
}

/** Run one SQL statement against `url` on a connection of its own. */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text, values)).rows;
  } finally {
    await c.end();
  }
}
