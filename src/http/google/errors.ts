// ApiError → Google's error body: {"error": {"code", "message", "errors": [{"message", "domain", "reason"}],
// "status"}}. Google's client libraries decide on retries from the status code and `errors[].reason`
// (@google-cloud/common retries 408/429/5xx and a 403 whose reason is rateLimitExceeded/userRateLimitExceeded),
// so the reason of each case is chosen for what the client should do: the monthly quota is `quotaExceeded`,
// never a retryable reason, because retrying cannot help before the month ends.
import { ApiError } from '../../errors/api-error.ts';

export interface GoogleErrorBody {
  error: {
    code: number;
    message: string;
    errors: { message: string; domain: 'global'; reason: string }[];
    status: string;
  };
}

/** google.rpc.Code names by HTTP status, as Google's JSON errors carry them. */
const STATUS_BY_CODE: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Errors of this surface that have no counterpart in the shared ApiError types. */
export class GoogleError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly status = STATUS_BY_CODE[code] ?? 'UNKNOWN',
  ) {
    super(message);
    this.name = 'GoogleError';
  }
}

export const missingKey = () =>
  new GoogleError(
    403,
    'forbidden',
    'The request is missing a valid API key: pass it in the x-goog-api-key or X-API-Key header.',
  );

export const keyInQueryRefused = (name = 'key') =>
  new GoogleError(
    403,
    'forbidden',
    name === 'key'
      ? 'API keys in the query string (?key=) are disabled on this server because URLs end up in logs: pass the ' +
          'key in the x-goog-api-key or X-API-Key header, or ask the operator to set DRAGOMAN_GOOGLE_KEY_IN_QUERY=on.'
      : `API keys are not accepted in the query string (?${name.slice(0, 20)}=): URLs end up in logs. Pass the key ` +
          'in the x-goog-api-key or X-API-Key header.',
  );

export const conflictingKeys = () =>
  new GoogleError(
    400,
    'badRequest',
    'The request presents two different API keys (x-goog-api-key, X-API-Key or ?key=): send one.',
  );

/** Google's answer to a wrong key is 400 "API key not valid"; our reason (unknown, revoked, ...) follows. */
export function keyInvalid(api: ApiError): GoogleError {
  const why = api.message
    .split('. ')[0]!
    .replace(/^Invalid API key ?/, '')
    .replace(/^\((.*)\)$/, '$1')
    .trim();
  return new GoogleError(400, 'keyInvalid', `API key not valid. Please pass a valid API key.${why ? ` (${why})` : ''}`);
}

function reasonOf(api: ApiError): string {
  switch (api.type) {
    case 'quota_exceeded':
      return 'quotaExceeded';
    case 'rate_limit':
      return 'rateLimitExceeded';
    case 'authentication_error':
      return 'keyInvalid';
    case 'server_error':
      return 'backendError';
    case 'invalid_request':
      if (api.status === 404) return 'notFound';
      if (api.status === 405) return 'httpMethodNotAllowed';
      if (api.status === 413) return 'requestTooLarge';
      if (api.status === 415) return 'badRequest';
      if (api.message.startsWith('Malformed JSON')) return 'parseError';
      if (api.message.startsWith('Missing required field')) return 'required';
      return 'invalid';
  }
}

/** Service messages point at the /v1 listing; on this surface the listing lives elsewhere. */
function localize(message: string): string {
  return message
    .replaceAll('GET /v1/languages', 'GET /language/translate/v2/languages')
    .replace(/^Unsupported Content-Type: .*/, UNSUPPORTED_MEDIA_TYPE);
}

const UNSUPPORTED_MEDIA_TYPE =
  'Unsupported Content-Type: send the parameters in the query string, as JSON (Content-Type: application/json) ' +
  'or form-encoded (Content-Type: application/x-www-form-urlencoded).';

export function googleError(error: GoogleError | ApiError): GoogleErrorBody {
  if (error instanceof GoogleError) {
    return {
      error: {
        code: error.code,
        message: error.message,
        errors: [{ message: error.message, domain: 'global', reason: error.reason }],
        status: error.status,
      },
    };
  }
  const code = error.status;
  const message = localize(error.message);
  return {
    error: {
      code,
      message,
      errors: [{ message, domain: 'global', reason: reasonOf(error) }],
      status: STATUS_BY_CODE[code] ?? (code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT'),
    },
  };
}
