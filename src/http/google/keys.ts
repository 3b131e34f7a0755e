// Where a Google client puts its key: the x-goog-api-key header (Python cloud client), X-API-Key (ours), or
// `?key=` (the Node client and every discovery-based client). The query key is refused unless the operator
// turned it on (DRAGOMAN_GOOGLE_KEY_IN_QUERY): URLs end up in proxy and access logs. Our own logger never
// writes query strings (server.ts serializers), so an accepted query key is not logged either.
import type { FastifyRequest } from 'fastify';
import { conflictingKeys, keyInQueryRefused } from './errors.ts';

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function queryKey(request: FastifyRequest): { present: boolean; values: string[] } {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query || !Object.prototype.hasOwnProperty.call(query, 'key')) return { present: false, values: [] };
  // `?key=K&key=K` arrives as an array.
  const all = [query.key].flat();
  return { present: true, values: all.filter((v): v is string => typeof v === 'string' && v.trim() !== '') };
}

/** The key this request presents, or undefined when it presents none (throws when ?key= is not allowed). */
export function googleKey(request: FastifyRequest, keyInQuery: boolean): string | undefined {
  const fromQuery = queryKey(request);
  if (fromQuery.present && !keyInQuery) throw keyInQueryRefused();
  const given = [header(request, 'x-goog-api-key'), header(request, 'x-api-key'), ...fromQuery.values].filter((v): v is string => v !== undefined);
  // The same key twice is fine; two different keys would make the one charged a guess.
  if (new Set(given).size > 1) throw conflictingKeys();
  return given[0];
}
