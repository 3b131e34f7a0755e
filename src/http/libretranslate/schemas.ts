// Documentation-only schemas: bodies arrive as JSON or form data and the service validates the fields, so
// its messages are the same as on the other surfaces.
import type { FastifySchema } from 'fastify';

export function routeDoc(summary: string): FastifySchema {
  // summary/tags are read by the OpenAPI generator (@fastify/swagger), which widens FastifySchema with them.
  return { summary, tags: ['LibreTranslate compatible'] } as FastifySchema;
}
