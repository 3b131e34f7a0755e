// The web page at `/` (DRAGOMAN_UI): static files only, same origin as the /v1 API it calls, under a strict
// Content-Security-Policy: nothing inline, nothing from another origin, so the page works air-gapped and an
// injected string can never run as script.
import type { FastifyInstance } from 'fastify';
import { languageByFlores } from '../../languages/catalog.ts';
import type { Service } from '../../service/index.ts';
import { invalidRequest } from '../../service/errors.ts';
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

/** The page's own copy of GET /v1/languages, without a key (see uiRoutes). */
export const UI_LANGUAGES_PATH = '/ui/languages';

/**
 * /v1/languages' entries, each with `google` where Google's code differs from ours: a browser set to `fa-AF`
 * means Dari (`prs`, which the API also reads `fa-AF` as), not the `fa` the tag's base would pick.
 */
function uiLanguagesBody(service: Service, target: string | undefined) {
  const languages = service.languages(target).map(({ language, name, flores }) => {
    const google = languageByFlores(flores)?.google;
    return google && google !== language ? { language, name, google } : { language, name };
  });
  return { data: { languages } };
}

export async function uiRoutes(app: FastifyInstance): Promise<void> {
  // The pickers are the page's own data, not an API call: fetched without a key they cost the key nothing, so a
  // 1-request-a-minute key still gets its first translation. What the server translates is no secret (/health
  // names the installed models to anyone).
  app.get(UI_LANGUAGES_PATH, async (request, reply) => {
    // No key to count it against: counted per client address (DRAGOMAN_KEYLESS_RPM).
    app.dragoman.gate.admitKeyless(request.ip);
    const { target } = request.query as { target?: unknown };
    if (target !== undefined && typeof target !== 'string') throw invalidRequest(`Query parameter 'target' must be one language code.`);
    reply.headers(SECURITY_HEADERS);
    return uiLanguagesBody(app.dragoman.service, target);
  });
  const assets = await loadAssets();
  for (const [path, file] of assets) {
    app.get(path, async (request, reply) => {
      reply.headers(SECURITY_HEADERS).header('etag', file.etag);
      if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
      return reply.type(file.type).send(file.body);
    });
  }
}
