// Metering of one request, shared by every wire format: authenticate the key, count the request in the key's
// rolling 60 s window, then charge the request's characters BEFORE the work and refund them if it fails.
// Charging first is what keeps concurrent requests from overspending and keeps a crash from losing the
// charge of a request that was answered 200. Everything failing here is an error of errors.ts the surface maps.
import type { Accounts } from './accounts.ts';
import { AuthenticationFailed, QuotaExceeded, RateLimited, SharedKeyUnusable } from './errors.ts';
import { periodBounds, periodOf } from './period.ts';
import { RollingWindow } from './rolling-window.ts';
import type { Charge, ChargeOptions, KeyRecord, Limit, Limits, RateOutcome } from './types.ts';

export interface GateOptions {
  /** Failed authentications (a key was sent but is wrong) per address per minute before 429. */
  failedAuthPerMinute?: number;
  /** Requests per address per rolling minute to endpoints that need no key; null or absent = no limit. */
  keylessPerMinute?: number | null;
}

/** A request's charge, and the key's characters used this month with it and its limit (null = none). */
export interface Charged {
  charge: Charge;
  used: number;
  limit: Limit;
}

/** A request that passed authentication and the rate limit. */
export interface Admission {
  key: KeyRecord;
  limits: Limits;
  /** The key's rate window after this request (the surface sends it as headers with whatever response follows). */
  rate: RateOutcome;
}

/** Too many requests from a client address (no key to count against): `message`, then when to retry. */
export function addressLimited(wait: number, message: string, how = ''): RateLimited {
  return new RateLimited(`${message} Retry after ${wait} seconds${how}.`, wait * 1000);
}

export class Gate {
  private readonly failedAuth: RollingWindow;
  private readonly keyless: RollingWindow | null;

  constructor(
    readonly accounts: Accounts,
    options: GateOptions = {},
  ) {
    this.failedAuth = new RollingWindow(options.failedAuthPerMinute ?? 20, 60_000);
    this.keyless = options.keylessPerMinute ? new RollingWindow(options.keylessPerMinute, 60_000) : null;
  }

  /**
   * A request to an endpoint that needs no key (LibreTranslate's languages and settings, the page's languages):
   * there is no key to count it against, so it is counted per client address. RateLimited past the limit
   * (refused requests are not counted, as for keys).
   */
  admitKeyless(address: string): void {
    if (!this.keyless) return;
    const now = this.now();
    const wait = this.keyless.blockedFor(address, now);
    if (wait > 0) {
      throw addressLimited(
        wait,
        `Too many requests from this address to endpoints that need no key: at most ${this.keyless.limit} in the past 60 seconds.`,
      );
    }
    this.keyless.record(address, now);
  }

  private now(): number {
    return this.accounts.clock.now();
  }

  /** Authenticate and count the request in the key's rolling window (every keyed endpoint, GET /v1/usage too). */
  async admit(secret: string | undefined, address: string): Promise<Admission> {
    const now = this.now();
    const blocked = this.failedAuth.blockedFor(address, now);
    if (blocked > 0) {
      throw addressLimited(blocked, 'Too many requests with an invalid API key were sent from this address in the past 60 seconds.', ' with a valid API key');
    }
    let key: KeyRecord;
    try {
      key = await this.accounts.authenticate(secret);
    } catch (err) {
      // Only wrong keys count; a missing header is a client that has not been configured yet, and a database
      // that cannot be reached says nothing about the key.
      const wrongKey = err instanceof AuthenticationFailed;
      if (wrongKey && secret !== undefined && secret.trim() !== '') this.failedAuth.record(address, now);
      throw err;
    }
    return this.countRequest(key, now);
  }

  /**
   * A request metered against a key named by its id, with no secret presented (the web page's shared key,
   * DRAGOMAN_UI_KEY): the address is counted first as for any keyless request, then the key as in `admit`.
   * SharedKeyUnusable when the key is unknown or revoked (the operator's setting no longer names a working key).
   */
  async admitKeyId(keyId: string, address: string): Promise<Admission> {
    this.admitKeyless(address);
    const key = await this.accounts.store.getKey(keyId);
    if (!key || key.revokedAt !== null) {
      throw new SharedKeyUnusable(key ? 'revoked' : 'unknown');
    }
    return this.countRequest(key, this.now());
  }

  /** Count the request in the key's rolling window, or RateLimited. */
  private async countRequest(key: KeyRecord, now: number): Promise<Admission> {
    const limits = await this.accounts.limits(key.id);
    const outcome = await this.accounts.store.hitRateLimit(key.id, limits.rpm, now);
    if (!outcome.ok) {
      throw new RateLimited(
        outcome.limit === 0
          ? `Too many requests: this key's limit is 0 requests in the past 60 seconds (set by the operator), so every request is refused until it is raised.`
          : `Too many requests: this key's limit of ${outcome.limit} requests in the past 60 seconds was reached. ` +
            `Retry after ${outcome.retryAfterSeconds} seconds, and batch strings in the q array to send fewer requests.`,
        outcome.retryAfterSeconds * 1000,
        outcome,
      );
    }
    return { key, limits, rate: outcome };
  }

  /**
   * Charge `chars` to the key's current month, or QuotaExceeded (nothing charged) when they do not fit. `named`: a
   * charge with the caller's id, made once however often it is asked for (AccountStore.charge).
   */
  async charge(admission: Admission, chars: number, named?: ChargeOptions): Promise<Charged> {
    const now = this.now();
    const period = periodOf(now);
    // The day from the same clock as the month, so the per-day ledger adds up to the month's usage.
    const outcome = await this.accounts.store.charge(admission.key.id, period, chars, named, new Date(now).toISOString().slice(0, 10));
    if (outcome.ok) return { charge: outcome.charge, used: outcome.used, limit: outcome.limit };
    throw this.exceeded(admission, `this request has ${chars} character${chars === 1 ? '' : 's'} but`, outcome.used, outcome.limit, period);
  }

  /**
   * Refuses (QuotaExceeded) a request for which the key has no character left this month, and otherwise says how
   * many it has (null: no limit): costly work (a document read and planned) is refused before it is done, and
   * stopped as soon as its characters are more than this.
   */
  async charactersLeft(admission: Admission): Promise<number | null> {
    const limit = admission.limits.monthlyChars;
    if (limit === null) return null;
    const period = periodOf(this.now());
    const { chars: used } = await this.accounts.store.usage(admission.key.id, period);
    if (used >= limit) throw this.exceeded(admission, 'nothing of this request was read:', used, limit, period);
    return limit - used;
  }

  /** QuotaExceeded for a request found to have more than `chars` characters, more than the key has left. */
  overQuota(admission: Admission, chars: number, left: number): QuotaExceeded {
    const limit = admission.limits.monthlyChars ?? 0;
    return this.exceeded(admission, `this request has at least ${chars} characters but`, limit - left, limit, periodOf(this.now()));
  }

  private exceeded(admission: Admission, lead: string, used: number, limit: Limit, period: string): QuotaExceeded {
    const left = limit === null ? 0 : Math.max(0, limit - used);
    const resets = periodBounds(period).end.toISOString();
    // Whose figure it is: the key's own limit (keys create/set-limits --monthly-chars) or its plan's.
    const own = admission.key.overrides.monthlyChars !== undefined;
    return new QuotaExceeded(
      `Monthly character quota exceeded: ${lead} only ${left} of the ` +
        `${limit} characters ${own ? `this key is allowed (its own limit, on the ${admission.key.plan} plan)` : `of the ${admission.key.plan} plan`} ` +
        `are left this month (resets ${resets}). ` +
        (own ? `Upgrade the plan or ask the operator to raise this key's limit to get more characters.` : `Upgrade the plan to get more characters.`),
    );
  }

  async refund(charge: Charge): Promise<void> {
    await this.accounts.store.refund(charge);
  }

  /** Part of a standing charge given back (characters its plan does not bill); the charge as it now stands. */
  credit(charge: Charge, chars: number): Promise<Charge> {
    return this.accounts.store.credit(charge, chars);
  }
}
