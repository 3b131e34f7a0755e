// Documentation-only schemas: parameters reach this surface as query strings, JSON (wrapped or not) and form
// bodies, so validation is done by the service on the folded parameters instead of by Ajv.
import type { FastifySchema } from 'fastify';

export function routeDoc(summary: string): FastifySchema {
  // summary/tags are read by the OpenAPI generator (@fastify/swagger), which widens FastifySchema with them.
  return { summary, tags: ['Google Translate v2 compatible'] } as FastifySchema;
}
