// Where a Google client puts its key: the x-goog-api-key header (Python cloud client), X-API-Key (ours), or
// `?key=` (the Node client and every discovery-based client), accepted unless the operator turns it off
// (DRAGOMAN_GOOGLE_KEY_IN_QUERY=off: URLs end up in proxy and access logs; docs/compatibility.md weighs it). Our own
// logger never writes query strings (server.ts serializers), so an accepted query key is not logged either.
import type { FastifyRequest } from 'fastify';
import { headerValues, keyNamesInQuery, oneKey } from '../presented-keys.ts';
import { conflictingKeys, keyInQueryRefused } from './errors.ts';

/** The key this request presents, or undefined when it presents none (throws when a query key is not allowed). */
export function googleKey(request: FastifyRequest, keyInQuery: boolean): string | undefined {
  // `?key=` is Google's own (allowed by the operator's choice); api_key, apiKey, auth_key are no Google parameter.
  const names = keyNamesInQuery(request);
  const refused = names.find((name) => !(keyInQuery && name === 'key'));
  if (refused !== undefined) throw keyInQueryRefused(refused);
  const query = request.query as Record<string, unknown>;
  const fromQuery = names.length > 0 ? [query.key].flat().filter((v): v is string => typeof v === 'string') : [];
  return oneKey([...headerValues(request, 'x-goog-api-key'), ...headerValues(request, 'x-api-key'), ...fromQuery], conflictingKeys);
}
