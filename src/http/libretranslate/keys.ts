// Keys on this surface: `api_key` in the body (LibreTranslate, Mastodon), `apiKey` (the libretranslate npm
// client, which sends "" when it has none), or the X-API-Key header. Bodies are never logged, so neither is
// a body key. A key in the query string is refused (LibreTranslate's clients send it in the body; a URL ends up
// in logs). The same key in several places is one key; two different ones are refused (presented-keys.ts).
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { headerValues, keyNamesInQuery, oneKey } from '../presented-keys.ts';
import { KEY_HINT } from './errors.ts';
import { libreBody } from './params.ts';

/** A body field's keys: a string, or each string of a repeated form field. */
function values(v: unknown): string[] {
  return [v].flat().filter((k): k is string => typeof k === 'string');
}

/** The key this request presents, or undefined when it presents none. */
export function libreKey(request: FastifyRequest): string | undefined {
  const inQuery = keyNamesInQuery(request);
  if (inQuery.length > 0) {
    throw new ApiError(
      401,
      'authentication_error',
      `API keys are not accepted in the query string (?${inQuery[0]!.slice(0, 20)}=): URLs end up in logs. ${KEY_HINT}`,
    );
  }
  const body = libreBody(request.body);
  return oneKey(
    [...values(body.api_key), ...values(body.apiKey), ...headerValues(request, 'x-api-key')],
    () => new ApiError(400, 'invalid_request', 'The request presents two different API keys (api_key, apiKey or X-API-Key): send one.'),
  );
}
