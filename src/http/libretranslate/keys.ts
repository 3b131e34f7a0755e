// Keys on this surface: `api_key` in the body (LibreTranslate, Mastodon), `apiKey` (the libretranslate npm
// client, which sends "" when it has none), or the X-API-Key header. Bodies are never logged, so neither is
// a body key.
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../service/errors.ts';
import { libreBody } from './params.ts';

/** The key as the accounts read it (trimmed), or undefined for none. */
function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** The key this request presents, or undefined when it presents none. */
export function libreKey(request: FastifyRequest): string | undefined {
  const body = libreBody(request.body);
  const given = [nonEmpty(body.api_key), nonEmpty(body.apiKey), nonEmpty(request.headers['x-api-key'])].filter(
    (v): v is string => v !== undefined,
  );
  // The same key twice is fine; two different keys would make the one charged a guess (as on the Google surface).
  if (new Set(given).size > 1) {
    throw new ApiError(
      400,
      'invalid_request',
      'The request presents two different API keys (api_key, apiKey or X-API-Key): send one.',
    );
  }
  return given[0];
}
