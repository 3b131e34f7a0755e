// The one error type every layer throws. Each wire format (/v1, Google v2, LibreTranslate) maps it to its own
// body shape; nothing below http knows about HTTP bodies.

export type ErrorType = 'invalid_request' | 'authentication_error' | 'quota_exceeded' | 'rate_limit' | 'server_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ErrorType,
    message: string,
    /** Extra response headers (Retry-After for 429, ...). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const invalidRequest = (message: string) => new ApiError(400, 'invalid_request', message);

export const serverError = (message = 'Internal server error. Retrying after a short delay is safe.') =>
  new ApiError(500, 'server_error', message);
