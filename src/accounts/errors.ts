// What accounts refuse or fail with, in their own words. src/http maps each to a status code, body and headers per
// surface (the rate limit's headers too); accounts know nothing of HTTP.
import type { RateOutcome } from './types.ts';

export class AccountsError extends Error {}

export type AuthFailure = 'missing' | 'malformed' | 'unknown' | 'revoked';

const AUTH_MESSAGES: Record<AuthFailure, string> = {
  missing: 'Missing API key.',
  malformed: 'Invalid API key (malformed or mistyped).',
  unknown: 'Invalid API key (unknown or mistyped).',
  revoked: 'This API key has been revoked.',
};

/** No key, or not one that may be used. */
export class AuthenticationFailed extends AccountsError {
  constructor(readonly failure: AuthFailure) {
    super(AUTH_MESSAGES[failure]);
    this.name = 'AuthenticationFailed';
  }
}

/**
 * Too many requests in a rolling window: of a key (`rate`: the key's window, for the response's rate headers) or of a
 * client address (signups, keyless endpoints, wrong keys). `retryAfterMs`: when one more would be accepted.
 */
export class RateLimited extends AccountsError {
  constructor(message: string, readonly retryAfterMs: number, readonly rate?: RateOutcome) {
    super(message);
    this.name = 'RateLimited';
  }

  /** Whole seconds to wait (at least 1). */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.retryAfterMs / 1000));
  }
}

/** The request's characters do not fit in what is left of the key's month. Nothing was charged. */
export class QuotaExceeded extends AccountsError {
  constructor(message: string) {
    super(message);
    this.name = 'QuotaExceeded';
  }
}

/** The account database cannot be reached right now: the request was not processed and nothing was charged. */
export class AccountsUnavailable extends AccountsError {
  readonly retryAfterMs = 1000;
  constructor() {
    super('The account database is unreachable right now, so the request was not processed and nothing was charged.');
    this.name = 'AccountsUnavailable';
  }
}
