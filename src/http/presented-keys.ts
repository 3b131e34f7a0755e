// What every surface agrees on about the keys a request presents, whatever its own places for them:
// - a header sent twice arrives joined by Node as "K, K": each value counts, and the same key twice is one key;
// - two different keys are refused (400): charging one of them would be a guess;
// - a key in the query string under a known key name (key, api_key, apiKey, auth_key, any case, - or _) is
//   refused unless the surface documents it (Google's ?key=, unless DRAGOMAN_GOOGLE_KEY_IN_QUERY=off): URLs end up in
//   proxy and access logs. A refused name is reported, so the caller learns where to put the key instead.
import type { FastifyRequest } from 'fastify';

const KEY_NAMES = new Set(['key', 'apikey', 'authkey']);

/** Query parameters of `request` whose name is a known name for an API key, in the order given. */
export function keyNamesInQuery(request: FastifyRequest): string[] {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query || typeof query !== 'object') return [];
  return Object.keys(query).filter((name) => KEY_NAMES.has(name.toLowerCase().replace(/[-_]/g, '')));
}

/** Every non-empty value of a header (a repeated header arrives joined by ", "; keys hold no comma), trimmed. */
export function headerValues(request: FastifyRequest, name: string): string[] {
  const raw = request.headers[name];
  return [raw]
    .flat()
    .flatMap((v) => (typeof v === 'string' ? v.split(',') : []))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The one key among `given` (the same key any number of times is one), undefined for none; throws on two. */
export function oneKey(given: readonly string[], conflict: () => Error): string | undefined {
  const keys = new Set(given.map((k) => k.trim()).filter((k) => k !== ''));
  if (keys.size > 1) throw conflict();
  return keys.values().next().value;
}
