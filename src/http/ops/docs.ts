// The OpenAPI document is generated from the JSON schemas the /v1 routes already validate with, so it cannot
// drift from what the server accepts. Only /v1 is documented (the compatibility surfaces follow other vendors'
// documents; the ops routes are in docs/operations.md). Swagger UI's files are served from node_modules.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** Global: the generator collects routes through an onRoute hook, so it must be registered before them. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Dragoman translation API',
        description:
          'Self-hosted translation and language detection. Every /v1 call except POST /v1/signup needs an API key ' +
          'in the X-API-Key header. Errors are {"error":{"code","message","type"}}.',
        version: '1',
      },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: ({ schema, url }) => ({
      schema: url.startsWith('/v1/') ? withTypedQ(schema) : { ...schema, hide: true },
      url,
    }),
  });
}

/** `q` as readers of the document need it; the routes leave it untyped so the service's messages apply. */
const qForDocs = {
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
} as const;

/** The route's schema with `q` typed for readers of the document (a copy: the route validates with the original). */
function withTypedQ<S>(schema: S): S {
  const body = (schema as { body?: { properties?: Record<string, unknown> } } | undefined)?.body;
  if (!body?.properties?.q) return schema;
  return { ...schema, body: { ...body, properties: { ...body.properties, q: { ...(body.properties.q as object), ...qForDocs } } } };
}

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: false },
    // A Content-Security-Policy that allows only this server's own scripts and styles.
    staticCSP: true,
  });
}
