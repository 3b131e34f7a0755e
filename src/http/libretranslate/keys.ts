// Keys on this surface: `api_key` in the body (LibreTranslate, Mastodon), `apiKey` (the libretranslate npm
// client, which sends "" when it has none), or the X-API-Key header. Bodies are never logged, so neither is
// a body key.
import type { FastifyRequest } from 'fastify';
import { libreBody } from './params.ts';

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

export function libreKey(request: FastifyRequest): string | undefined {
  const body = libreBody(request.body);
  return nonEmpty(body.api_key) ?? nonEmpty(body.apiKey) ?? nonEmpty(request.headers['x-api-key']);
}
