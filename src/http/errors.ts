// Every error that reaches a response becomes an ApiError here: ours pass through, Fastify's own (bad JSON,
// content type, body size, schema validation) get specific messages, anything else is a 500 that hides the
// internal detail and says a retry is safe.
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, serverError } from '../errors/api-error.ts';
import { fromDomainError } from './domain-errors.ts';

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: { keyword: string; instancePath: string; params: Record<string, unknown>; message?: string }[];
  validationContext?: string;
}

/** Extra words for a missing field, by name. */
const FIELD_HINTS: Record<string, string> = {
  q: 'a string or an array of strings',
  target: 'a language code such as "de"; see GET /v1/languages for the supported codes',
};

function fieldName(instancePath: string, context: string | undefined): string {
  const path = instancePath.replace(/^\//, '').replace(/\//g, '.');
  return path || context || 'body';
}

function validationMessage(err: FastifyLikeError): string {
  const v = err.validation![0]!;
  const where = err.validationContext;
  if (v.keyword === 'required') {
    const field = String(v.params.missingProperty);
    const hint = FIELD_HINTS[field];
    return `Missing required field '${field}'${hint ? `: ${hint}` : ''}.`;
  }
  if (v.keyword === 'type' && v.instancePath === '') {
    return where === 'body'
      ? 'The request body must be a JSON object such as {"q": "Hello", "target": "de"}.'
      : `Invalid ${where ?? 'request'}: ${v.message}.`;
  }
  const field = fieldName(v.instancePath, where);
  if (v.keyword === 'type') return `Field '${field}' must be a ${String(v.params.type).split(',').join(' or ')}.`;
  if (v.keyword === 'enum') {
    // null may be allowed (it means the default) but is not a value to name.
    return `Field '${field}' must be one of: ${(v.params.allowedValues as unknown[]).filter((x) => x !== null).join(', ')}.`;
  }
  if (v.keyword === 'additionalProperties') {
    return `Unknown field '${String(v.params.additionalProperty)}' in the ${where ?? 'request'}.`;
  }
  return `Invalid field '${field}': ${v.message}.`;
}

export function toApiError(error: unknown, maxBodyBytes: number): ApiError {
  if (error instanceof ApiError) return error;
  const domain = fromDomainError(error);
  if (domain) return domain;
  const err = (error ?? {}) as FastifyLikeError;
  if (err.validation && err.validation.length > 0) return new ApiError(400, 'invalid_request', validationMessage(err));
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, 'invalid_request', `Malformed JSON in the request body: ${err.message ?? 'parse error'}.`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'invalid_request', 'The request body is empty: send a JSON object.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        415,
        'invalid_request',
        'Unsupported Content-Type: send the request body as JSON with the header Content-Type: application/json.',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(
        413,
        'invalid_request',
        `Request body too large: the maximum is ${maxBodyBytes} bytes. Split the text over several requests.`,
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'invalid_request', 'The Content-Length header does not match the body sent.');
  }
  if (error instanceof SyntaxError && err.statusCode === 400) {
    return new ApiError(400, 'invalid_request', `Malformed JSON in the request body: ${err.message}.`);
  }
  // Other client errors Fastify raises (bad URL encoding, ...): keep their status, it is the client's to fix.
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError(err.statusCode, 'invalid_request', err.message || 'Bad request.');
  }
  return serverError();
}

export function errorBody(e: ApiError): { error: { code: number; message: string; type: string } } {
  return { error: { code: e.status, message: e.message, type: e.type } };
}

/**
 * The log line of a failed request, the same on every surface: a 503 is a known state (database away, shutting
 * down), one warn line rather than a stack trace per request; any other 5xx is an error with its cause.
 */
export function logServerFailure(log: FastifyBaseLogger, api: ApiError, original: unknown): void {
  if (api.status === 503) log.warn({ reason: api.message }, 'request refused: service unavailable');
  else if (api.status >= 500) log.error({ err: original }, 'request failed');
}
