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

/**
 * Swagger UI's top-bar logo is an SVG with a <style> element of its own (`.logo_small_svg__cls-2{fill:#fff}...`),
 * blocked by `style-src 'self'` with a console error: allowed by the hash of its content, and nothing else inline.
 * A Swagger UI upgrade that changes the logo shows up as that console error in test/ui/docs.test.ts.
 */
const TOPBAR_LOGO_STYLE = 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w=';

/**
 * The policy of the Swagger UI pages: this server's own scripts, styles, images and fonts only. Not the plugin's
 * own (staticCSP: true): it always adds upgrade-insecure-requests, and over plain HTTP on any host but localhost the
 * browser then fetches the page's CSS and JS from https://, which fails — no operation renders. That directive is
 * sent only when the request came over https (directly, or through a trusted proxy's X-Forwarded-Proto).
 */
export function docsPolicy(https: boolean): string {
  return [
    "default-src 'self'",
    "base-uri 'self'",
    "font-src 'self' data:",
    "frame-ancestors 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    `style-src 'self' '${TOPBAR_LOGO_STYLE}'`,
    "form-action 'self'",
    ...(https ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

export async function docsRoutes(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.url.startsWith('/docs')) reply.header('content-security-policy', docsPolicy(request.protocol === 'https'));
    return payload;
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // No validator badge: it is an image from validator.swagger.io, and this server talks to nothing else.
    uiConfig: { docExpansion: 'list', deepLinking: false, validatorUrl: null },
  });
}
