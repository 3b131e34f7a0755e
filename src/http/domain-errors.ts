// The engine's and accounts' errors as the API's: one table of status, type, message and headers. Each surface then
// shapes the ApiError into its own body (errors.ts for /v1 and the page, google/errors.ts, libretranslate/errors.ts).
import { AccountsUnavailable, AuthenticationFailed, InvalidFreeText, QuotaExceeded, RateLimited, SharedKeyUnusable } from '../accounts/errors.ts';
import type { RateOutcome } from '../accounts/types.ts';
import { EngineUnavailable, ModelTooLarge, ModelUnavailable, NoLanguageToken, NoRoute, PromptPartUnsupported, PromptTooLong, TooManyTerms, WorkerDied } from '../engine/errors.ts';
import { ApiError } from '../errors/api-error.ts';

/** How a client passes a key: said with every authentication failure. */
export const AUTH_HINT = 'Pass a valid API key in the X-API-Key header.';

/** A key's rate window as X-RateLimit-* headers (none for a key without a limit). */
export function rateLimitHeaders(rate: RateOutcome): Record<string, string> {
  if (rate.limit === null) return {};
  return {
    'x-ratelimit-limit': String(rate.limit),
    'x-ratelimit-remaining': String(rate.remaining ?? 0),
    'x-ratelimit-reset': String(rate.resetSeconds),
  };
}

type Mapping = [new (...args: never[]) => Error, (err: never) => ApiError];

const TABLE: Mapping[] = [
  [NoRoute, (e: NoRoute) => new ApiError(400, 'invalid_request', e.message)],
  [NoLanguageToken, (e: NoLanguageToken) => new ApiError(400, 'invalid_request', e.message)],
  [TooManyTerms, (e: TooManyTerms) => new ApiError(400, 'invalid_request', e.message)],
  [PromptPartUnsupported, (e: PromptPartUnsupported) => new ApiError(400, 'invalid_request', e.message)],
  [PromptTooLong, (e: PromptTooLong) => new ApiError(400, 'invalid_request', e.message)],
  [EngineUnavailable, (e: EngineUnavailable) => new ApiError(503, 'server_error',
    e.reason === 'clientGone' ? e.message
      : `${e.message}${e.reason === 'modelsUnloadable' ? ' Nothing was charged.' : ''} Retrying later is safe.`)],
  [WorkerDied, (e: WorkerDied) => new ApiError(500, 'server_error', `${e.message} Retrying is safe.`)],
  // The server's setting, not the request: nothing was charged, and a retry fails the same way until the operator acts.
  [ModelTooLarge, (e: ModelTooLarge) => new ApiError(503, 'server_error', `${e.message} Nothing was charged.`)],
  // The models folder changed under the request (or a model failed to load): a retry takes the routes as they are now.
  [ModelUnavailable, (e: ModelUnavailable) => new ApiError(503, 'server_error', `${e.message} Nothing was charged. Retrying is safe.`, {
    'retry-after': '1',
  })],
  [AuthenticationFailed, (e: AuthenticationFailed) => new ApiError(401, 'authentication_error', `${e.message} ${AUTH_HINT}`)],
  [InvalidFreeText, (e: InvalidFreeText) => new ApiError(400, 'invalid_request', e.message)],
  [SharedKeyUnusable, (e: SharedKeyUnusable) => new ApiError(401, 'authentication_error', e.message)],
  [RateLimited, (e: RateLimited) => new ApiError(429, 'rate_limit', e.message, {
    ...(e.rate ? rateLimitHeaders(e.rate) : {}), 'retry-after': String(e.retryAfterSeconds),
  })],
  [QuotaExceeded, (e: QuotaExceeded) => new ApiError(403, 'quota_exceeded', e.message)],
  [AccountsUnavailable, (e: AccountsUnavailable) => new ApiError(503, 'server_error', `${e.message} Retrying after a short delay is safe.`, {
    'retry-after': String(Math.ceil(e.retryAfterMs / 1000)),
  })],
];

/** The ApiError for an engine or accounts error, or undefined for anything else. */
export function fromDomainError(error: unknown): ApiError | undefined {
  for (const [type, map] of TABLE) if (error instanceof type) return map(error as never);
  return undefined;
}
