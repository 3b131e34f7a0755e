// The web page at `/` (DRAGOMAN_UI): static files only, same origin as the /v1 API it calls, under a strict
// Content-Security-Policy: nothing inline, nothing from another origin, so the page works air-gapped and an
// injected string can never run as script.
import type { FastifyInstance } from 'fastify';
import { loadAssets } from './assets.ts';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // Small files that change with each release: always revalidate (cheap with the ETag) rather than go stale.
  'cache-control': 'no-cache',
};

export async function uiRoutes(app: FastifyInstance): Promise<void> {
  const assets = await loadAssets();
  for (const [path, file] of assets) {
    app.get(path, async (request, reply) => {
      reply.headers(SECURITY_HEADERS).header('etag', file.etag);
      if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
      return reply.type(file.type).send(file.body);
    });
  }
}
