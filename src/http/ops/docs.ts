// The OpenAPI document is generated from the JSON schemas the /v1 routes already validate with, so it cannot
// drift from what the server accepts. Every surface is in it, each under its own tag: /v1 (with its documents and
// glossaries), DeepL, Google v2 and LibreTranslate (their routes carry a summary; their parameters are the
// vendors', documented in docs/compatibility.md and docs/deepl.md). The ops routes and the web page's own files are
// left out (docs/operations.md, docs/web-page.md). Swagger UI's files are served from node_modules.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { GOOGLE_PREFIX } from '../google/index.ts';
import { LIBRETRANSLATE_PREFIX } from '../libretranslate/errors.ts';

/** A surface of the API: where its paths start, its tag in the document, how its clients present the key. */
interface Surface {
  prefix: string;
  tag: string;
  description: string;
  security: Record<string, string[]>[];
}

/** First match wins: the /v1 documents and glossaries before the rest of /v1. */
export const SURFACES: readonly Surface[] = [
  { prefix: '/v1/documents', tag: 'Documents', description: 'Whole files translated in the background (docs/documents.md).', security: [{ apiKey: [] }] },
  { prefix: '/v1/glossaries', tag: 'Glossaries', description: "The key's glossaries: terms translated as given (docs/glossaries.md).", security: [{ apiKey: [] }] },
  { prefix: '/v1/', tag: 'Dragoman /v1', description: "Dragoman's own API (docs/api.md).", security: [{ apiKey: [] }] },
  {
    prefix: '/v2/',
    tag: 'DeepL API v2 compatible',
    description: 'For deepl-node and other DeepL clients pointed at this server (docs/deepl.md).',
    security: [{ deeplAuthKey: [] }],
  },
  { prefix: '/v3/', tag: 'DeepL API v3 compatible', description: "DeepL's multilingual glossaries (docs/deepl.md).", security: [{ deeplAuthKey: [] }] },
  {
    prefix: `${GOOGLE_PREFIX}`,
    tag: 'Google Translate v2 compatible',
    description: 'For Google Cloud Translation v2 clients (docs/compatibility.md).',
    security: [{ apiKey: [] }, { googleKey: [] }],
  },
  {
    prefix: `${LIBRETRANSLATE_PREFIX}/`,
    tag: 'LibreTranslate compatible',
    description: 'For LibreTranslate clients (docs/compatibility.md); api_key in the body or query.',
    security: [{ apiKey: [] }, { libreTranslateKey: [] }],
  },
];

function surfaceOf(url: string): Surface | undefined {
  return SURFACES.find((s) => url === s.prefix || url.startsWith(s.prefix.endsWith('/') ? s.prefix : `${s.prefix}/`));
}

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
      tags: SURFACES.map(({ tag, description }) => ({ name: tag, description })),
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          deeplAuthKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'DeepL-Auth-Key <key>' },
          googleKey: { type: 'apiKey', in: 'query', name: 'key', description: 'Google clients send ?key=' },
          libreTranslateKey: { type: 'apiKey', in: 'query', name: 'api_key' },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: ({ schema, url }) => {
      const surface = surfaceOf(url);
      if (!surface || (schema as { hide?: boolean } | undefined)?.hide) return { schema: { ...schema, hide: true }, url };
      const own = (schema ?? {}) as { tags?: string[]; security?: unknown };
      return {
        schema: { ...withTypedQ(schema ?? {}), tags: [surface.tag], ...(own.security ? {} : { security: surface.security }) },
        url,
      };
    },
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
