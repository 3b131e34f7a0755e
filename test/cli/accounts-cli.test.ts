// The keys / plans / usage commands in-process on a real SQLite file in a temp dir, checked through their
// output, exit codes and the store they write.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { systemClock } from '../../src/accounts/clock.ts';
import { defaultPlanLimits } from '../../src/accounts/plans.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite/store.ts';
import { periodOf } from '../../src/accounts/period.ts';
import { runCli } from './in-process.ts';
import { sqliteAccountStore } from '../stores.ts';

let dir: string;

function run(...args: string[]) {
  return runCli({ DRAGOMAN_DATA_DIR: dir, DRAGOMAN_RATE_PRESET: 'B' }, args);
}

async function withStore<T>(fn: (s: SqliteAccountStore) => Promise<T>): Promise<T> {
  const s = sqliteAccountStore(join(dir, 'dragoman.db'), defaultPlanLimits('B'));
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dragoman-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('dragoman keys', () => {
  it('create --json prints {id,key,plan} once; the key authenticates; only its hash is stored', async () => {
    const r = await run('keys', 'create', '--plan', 'pro', '--json');
    expect(r.code).toBe(0);
    const created = JSON.parse(r.out);
    expect(Object.keys(created).sort()).toEqual(['id', 'key', 'plan']);
    expect(created.plan).toBe('pro');
    await withStore(async (s) => {
      const key = await new Accounts(s, systemClock).authenticate(created.key);
      expect(key.id).toBe(created.id);
    });
    // Neither the database nor its WAL holds the secret, only its sha256.
    const { createHash } = await import('node:crypto');
    const { existsSync, readFileSync } = await import('node:fs');
    const files = ['dragoman.db', 'dragoman.db-wal'].map((f) => join(dir, f)).filter((f) => existsSync(f));
    const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
    expect(bytes.includes(created.key)).toBe(false);
    expect(bytes.includes(createHash('sha256').update(created.key).digest('hex'))).toBe(true);
    const list = await run('keys', 'list');
    expect(list.out).toContain(created.id);
    expect(list.out).toContain(created.key.slice(0, 9));
    expect(list.out).not.toContain(created.key);
  });

  it('keys create refuses control and bidi characters in --name and --email; keys list escapes rows stored before', async () => {
    for (const name of ['a\u001b]0;pwned\u0007', 'two\nlines', 'evil\u202etxt', 'nul\u0000', 'csi\u009b2J']) {
      const r = await run('keys', 'create', '--plan', 'free', '--name', name);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--name contains the control character U\+00(1B|0A|00|9B)|U\+202E/);
    }
    expect((await run('keys', 'create', '--plan', 'free', '--email', 'a\u001b[2J@example.org')).code).toBe(2);
    await withStore(async (s) => expect(await s.listKeys()).toEqual([]));
    // A row written before the check existed (straight into the store, as an old version would have).
    const hostile = '\u001b]0;owned\u0007\u001b[2K\renterprise  active\nforged\u202e\u0085\u009b31m';
    await withStore((s) =>
      s.insertKey({ id: 'k_00000000aa', prefix: 'drg_aaaaa', hash: 'f'.repeat(64), name: hostile, email: null, plan: 'free', overrides: {}, createdAt: Date.now() }),
    );
    for (const args of [['keys', 'list'], ['keys', 'list', '--json'], ['usage', '--json']]) {
      const r = await run(...args);
      expect(r.code).toBe(0);
      expect(r.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
    const list = await run('keys', 'list');
    expect(list.out.split('\n')).toHaveLength(2); // the header and one row: no forged line
    expect(list.out).toContain('\\u001b]0;owned\\u0007');
    expect(JSON.parse((await run('keys', 'list', '--json')).out)[0].name).toBe(hostile);
  });

  it('create with overrides, set-plan, set-limits, revoke', async () => {
    const human = await run('keys', 'create', '--plan', 'enterprise', '--name', 'acme', '--monthly-chars', '1_000_000', '--rpm', 'unlimited');
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/shown only once/);
    const id = human.out.match(/k_[0-9a-f]{10}/)![0];
    await withStore(async (s) => expect(await s.limitsFor(id)).toEqual({ monthlyChars: 1_000_000, rpm: null }));
    expect((await run('keys', 'set-plan', id, 'basic')).code).toBe(0);
    expect((await run('keys', 'set-limits', id, '--monthly-chars', 'plan', '--rpm', '7')).code).toBe(0);
    await withStore(async (s) => expect(await s.limitsFor(id)).toEqual({ monthlyChars: 5_000_000, rpm: 7 }));
    expect((await run('keys', 'revoke', id)).code).toBe(0);
    const again = await run('keys', 'revoke', id);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/already revoked/);
    expect((await run('keys', 'list')).out).toMatch(/revoked/);
    // A revoked key's plan and limits are not changed (most likely the wrong ID): exit 1, nothing written.
    for (const args of [['set-plan', id, 'pro'], ['set-limits', id, '--rpm', '9']]) {
      const r = await run('keys', ...args);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/is revoked: it cannot be used again/);
    }
    await withStore(async (s) => {
      expect((await s.getKey(id))!.plan).toBe('basic');
      expect(await s.limitsFor(id)).toEqual({ monthlyChars: 5_000_000, rpm: 7 });
    });
  });

  it('bad arguments exit 2 with a clear message; unknown ids exit 1', async () => {
    const noPlan = await run('keys', 'create');
    expect(noPlan.code).toBe(2);
    expect(noPlan.err).toMatch(/--plan is required/);
    const badPlan = await run('keys', 'create', '--plan', 'gold');
    expect(badPlan.code).toBe(2);
    expect(badPlan.err).toMatch(/unknown plan "gold"/);
    expect((await run('keys', 'create', '--plan', 'free', '--rpm', 'many')).err).toMatch(/--rpm must be/);
    expect((await run('keys', 'create', '--plan', 'free', '--email', 'notanemail')).err).toMatch(/--email "notanemail" is not an email address/);
    const huge = await run('keys', 'create', '--plan', 'free', '--rpm', '99999999999999999999');
    expect(huge.code).toBe(2);
    expect(huge.err).toMatch(/--rpm 99999999999999999999 is too large .*use "unlimited"/);
    expect((await run('keys', 'create', '--plan', 'free', '--bogus')).code).toBe(2);
    expect((await run('keys', 'frobnicate')).code).toBe(2);
    await withStore(async () => undefined); // the database exists (the server has run)
    const unknown = await run('keys', 'revoke', 'k_0000000000');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/no key with ID/);
    expect((await run('keys', 'set-plan', 'k_0000000000', 'pro')).code).toBe(1);
    expect((await run('nonsense')).code).toBe(2);
  });
});

describe('dragoman plans and usage', () => {
  it('a mistyped DRAGOMAN_DATA_DIR is said, not answered from a new empty database', async () => {
    for (const args of [['plans', 'list'], ['keys', 'list'], ['usage'], ['keys', 'revoke', 'k_0000000000']]) {
      const r = await run(...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.err).toContain(`no account database at ${join(dir, 'dragoman.db')}: check DRAGOMAN_DATA_DIR`);
    }
    expect(existsSync(join(dir, 'dragoman.db'))).toBe(false);
    expect((await run('keys', 'create', '--plan', 'free')).code).toBe(0); // the first key creates it
    expect((await run('keys', 'list')).code).toBe(0);
  });

  it('lists preset B, edits a plan and restores the default', async () => {
    await withStore(async () => undefined); // the database exists (the server has run)
    const list = await run('plans', 'list', '--json');
    const plans = JSON.parse(list.out);
    expect(plans.map((p: { rpm: number | null }) => p.rpm)).toEqual([100, 300, 1000, null]);
    expect((await run('plans', 'set', 'free', '--rpm', '5', '--monthly-chars', '1000')).out).toMatch(/1,000 characters per month, 5 requests/);
    expect((await run('plans', 'list')).out).toMatch(/free\s+1,000 \(set\)\s+5 \(set\)/);
    await run('plans', 'set', 'free', '--rpm', 'default');
    expect((await run('plans', 'list')).out).toMatch(/free\s+1,000 \(set\)\s+100 \(preset B\)/);
    expect((await run('plans', 'set', 'free')).code).toBe(2);
    expect((await run('plans', 'set', 'platinum', '--rpm', '1')).code).toBe(2);
  });

  it('usage shows characters per key for the current or a given month', async () => {
    const { id } = JSON.parse((await run('keys', 'create', '--plan', 'free', '--json')).out);
    const month = periodOf(Date.now());
    await withStore((s) => s.charge(id, month, 1234));
    await withStore((s) => s.charge(id, '2025-02', 7));
    const now = await run('usage', '--key', id, '--json');
    expect(JSON.parse(now.out)[0]).toMatchObject({ keyId: id, charactersUsed: 1234, characterLimit: 500_000, requests: 1 });
    const feb = await run('usage', '--month', '2025-02');
    expect(feb.out).toMatch(new RegExp(`${id}\\s+free\\s+7\\s+500,000\\s+1`));
    expect((await run('usage', '--month', '2025-13')).code).toBe(2);
    expect((await run('usage', '--key', 'k_nope')).code).toBe(1);
  });
});
