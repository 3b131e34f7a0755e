// The keys / plans / usage commands in-process on PostgreSQL (DRAGOMAN_DATABASE_URL): same commands, same
// output as on SQLite, checked through a second store on the same database.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { systemClock } from '../../src/accounts/clock.ts';
import { periodOf } from '../../src/accounts/period.ts';
import { defaultPlanLimits } from '../../src/accounts/plans.ts';
import { PgAccountStore } from '../../src/accounts/postgres/store.ts';
import { main } from '../../src/cli/dispatch.ts';
import { runCli } from '../cli/in-process.ts';
import { type FreshDatabase, freshDatabase, TEST_DATABASE_URL } from './pg-helpers.ts';
import { describeNeeding } from '../tools.ts';
import { pgAccountStore } from '../stores.ts';

describeNeeding('postgresql')('dragoman keys/plans/usage on PostgreSQL', () => {
  let db: FreshDatabase;
  let store: PgAccountStore;

  async function run(...args: string[]) {
    return runWith(db.url, ...args);
  }
  function runWith(url: string, ...args: string[]) {
    return runCli({ DRAGOMAN_DATABASE_URL: url, DRAGOMAN_DATA_DIR: '/nonexistent/dragoman-must-not-be-used' }, args);
  }

  beforeEach(async () => {
    db = await freshDatabase();
    store = pgAccountStore(db.url, defaultPlanLimits('A'));
  });
  afterEach(async () => {
    await store.close();
    await db.drop();
  });

  it('keys create/list/set-plan/revoke, plans set/list, usage', async () => {
    const created = JSON.parse((await run('keys', 'create', '--plan', 'basic', '--json')).out);
    const key = await new Accounts(store, systemClock).authenticate(created.key);
    expect(key).toMatchObject({ id: created.id, plan: 'basic' });
    expect((await run('keys', 'list')).out).toContain(created.id);

    expect((await run('plans', 'set', 'pro', '--rpm', '42')).code).toBe(0);
    expect((await store.listPlans()).find((p) => p.name === 'pro')?.rpm).toBe(42);
    expect((await run('plans', 'list')).out).toMatch(/pro.*42/);

    expect((await run('keys', 'set-plan', created.id, 'pro')).code).toBe(0);
    expect(await store.limitsFor(created.id)).toEqual({ monthlyChars: 50_000_000, rpm: 42 });

    await store.charge(created.id, periodOf(Date.now()), 1234);
    const usage = JSON.parse((await run('usage', '--key', created.id, '--json')).out);
    expect(usage[0]).toMatchObject({ keyId: created.id, charactersUsed: 1234, requests: 1 });

    expect((await run('keys', 'revoke', created.id)).code).toBe(0);
    expect((await store.getKey(created.id))?.revokedAt).not.toBeNull();
  });

  it('an unreachable database is a one-line error and exit code 1', async () => {
    const r = await runWith('postgres://dragoman@127.0.0.1:1/none', 'keys', 'list');
    expect(r.code).toBe(1);
    expect(r.err).toBe('dragoman: cannot reach the account database (DRAGOMAN_DATABASE_URL); try again when it is back');
  });

  it('serve: a database that refuses the start (TLS asked of a server without it) is one line and exit 1, no stack', async () => {
    const url = `${db.url}${db.url.includes('?') ? '&' : '?'}sslmode=require`;
    const err: string[] = [];
    const code = await main(['serve'], {
      env: { DRAGOMAN_DATABASE_URL: url, DRAGOMAN_PORT: '0', DRAGOMAN_MODELS_DIR: '/nonexistent-models', DRAGOMAN_LOG_LEVEL: 'silent' },
      out: () => undefined,
      err: (l) => void err.push(l),
    });
    expect(code).toBe(1);
    const text = err.join('\n');
    expect(text).toMatch(/cannot start: the account database \(DRAGOMAN_DATABASE_URL\) refused: .*SSL/);
    expect(text).not.toMatch(/\n\s+at /);
  });
});
