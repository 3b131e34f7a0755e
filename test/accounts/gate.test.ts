// The metering gate without HTTP: authentication outcomes, the per-key window (and the headers http makes of it), the
// per-address throttle of wrong keys, and charge/refund against a real SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { Gate } from '../../src/accounts/gate.ts';
import { defaultPlanLimits } from '../../src/accounts/plans.ts';
import { PgAccountStore } from '../../src/accounts/postgres/store.ts';
import { SqliteAccountStore } from '../../src/accounts/sqlite/store.ts';
import type { AccountStore } from '../../src/accounts/store.ts';
import { AccountsError } from '../../src/accounts/errors.ts';
import { fromDomainError, rateLimitHeaders } from '../../src/http/domain-errors.ts';
import type { ApiError } from '../../src/errors/api-error.ts';
import { type FreshDatabase, freshDatabase } from '../postgres/pg-helpers.ts';
import { pgAccountStore, sqliteAccountStore } from '../stores.ts';

let dir: string;
let store: AccountStore;
// The vitest project "api-on-postgres" runs this file again on a fresh PostgreSQL database.
let pgdb: FreshDatabase | undefined;
let clock: ManualClock;
let accounts: Accounts;
let gate: Gate;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dragoman-gate-'));
  if (process.env.DRAGOMAN_TEST_BACKEND === 'postgres') {
    pgdb = await freshDatabase();
    store = pgAccountStore(pgdb.url, defaultPlanLimits('A'));
  } else store = sqliteAccountStore(join(dir, 'dragoman.db'), defaultPlanLimits('A'));
  clock = new ManualClock(Date.UTC(2026, 2, 31, 23, 59, 0));
  accounts = new Accounts(store, clock);
  gate = new Gate(accounts, { failedAuthPerMinute: 3 });
});
afterEach(async () => {
  await store.close();
  await pgdb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** The accounts error `p` rejects with, as the HTTP surfaces answer it (src/http/domain-errors.ts). */
async function apiError(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AccountsError)) throw new Error(`expected an accounts error, got ${String(err)}`);
  return fromDomainError(err)!;
}

describe('Gate.admit', () => {
  it('401 for missing, malformed, unknown and revoked keys; a good key passes with rate headers', async () => {
    const { key, secret } = await accounts.createKey({ plan: 'free' });
    for (const s of [undefined, '', 'dk_short', 'dk_' + 'B'.repeat(32)]) {
      const e = await apiError(gate.admit(s, '10.0.0.1'));
      expect([e.status, e.type]).toEqual([401, 'authentication_error']);
      expect(e.message).toContain('X-API-Key header');
    }
    const ok = await gate.admit(secret, '10.0.0.2');
    expect(ok.key.id).toBe(key.id);
    expect(rateLimitHeaders(ok.rate)).toEqual({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '9', 'x-ratelimit-reset': '60' });
    await store.revokeKey(key.id, clock.now());
    expect((await apiError(gate.admit(secret, '10.0.0.2'))).message).toMatch(/revoked/);
  });

  it('wrong keys from one address are throttled; a missing key is not counted', async () => {
    const { secret } = await accounts.createKey({ plan: 'pro' });
    for (let i = 0; i < 5; i++) await apiError(gate.admit(undefined, '10.0.0.9'));
    for (let i = 0; i < 3; i++) await apiError(gate.admit('nope', '10.0.0.9'));
    const blocked = await apiError(gate.admit(secret, '10.0.0.9'));
    expect([blocked.status, blocked.type, blocked.headers['retry-after']]).toEqual([429, 'rate_limit', '60']);
    expect((await gate.admit(secret, '10.0.0.10')).key.plan).toBe('pro'); // other addresses unaffected
    clock.advance(60_000);
    expect((await gate.admit(secret, '10.0.0.9')).key.plan).toBe('pro');
  });

  it('429 past the per-key limit with Retry-After and the message of the specification', async () => {
    const { secret } = await accounts.createKey({ plan: 'free', rpm: 2 });
    await gate.admit(secret, 'a');
    clock.advance(15_000);
    await gate.admit(secret, 'a');
    const e = await apiError(gate.admit(secret, 'a'));
    expect(e.status).toBe(429);
    expect(e.message).toMatch(/Too many requests.*in the past 60 seconds/);
    expect(e.headers).toMatchObject({ 'retry-after': '45', 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '2' });
  });
});

describe('Gate.charge and refund', () => {
  it('charges the current UTC month, refuses past the quota with 403, refunds', async () => {
    const { secret, key } = await accounts.createKey({ plan: 'free', monthlyChars: 10 });
    const admission = await gate.admit(secret, 'a');
    const { charge: c, used, limit } = await gate.charge(admission, 10);
    expect([used, limit]).toEqual([10, 10]);
    // (toMatchObject: the PostgreSQL backend adds the charge's ledger id.)
    expect(c).toMatchObject({ keyId: key.id, period: '2026-03', chars: 10 });
    const e = await apiError(gate.charge(admission, 1));
    expect([e.status, e.type]).toEqual([403, 'quota_exceeded']);
    expect(e.message).toMatch(/only 0 of the 10 characters.*Upgrade the plan/);
    await gate.refund(c);
    expect((await accounts.usage(key)).charactersUsed).toBe(0);
    // One minute later it is April: a fresh quota.
    clock.advance(60_000);
    expect((await gate.charge(admission, 10)).charge.period).toBe('2026-04');
  });
});
