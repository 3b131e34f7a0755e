// CORS exactly as LibreTranslate sends it (its after_request hook adds these to every response of its API),
// so a web page on another origin can call this surface as it calls LibreTranslate: preflights are answered,
// and every response, errors included, carries the headers. Only this surface: /v1 and Google v2 stay
// same-origin.
import type { FastifyInstance } from 'fastify';

export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'Authorization, Content-Type',
  'access-control-expose-headers': 'Authorization',
  'access-control-allow-methods': 'GET, POST',
  'access-control-allow-credentials': 'true',
  'access-control-max-age': String(60 * 60 * 24 * 20),
} as const;

/**
 * On the surface's own instance (not a child plugin): its onSend hook must also see the surface's error and
 * not-found handlers. `paths` get an OPTIONS route answering the preflight (no key, nothing charged).
 */
export function installCors(app: FastifyInstance, paths: string[]): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(CORS_HEADERS);
    return payload;
  });
  for (const path of paths) {
    app.options(path, { config: { keyless: true }, schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
  }
}
