// DRAGOMAN_UI_KEY: which requests count as the web page's own, so that, sent without a key, they are metered
// against the operator's shared key instead of answered 401. A browser is made to prove the request comes from
// the page itself, on this origin; anything else without a key stays a 401 like before.
//
// What the checks stop, and what they cannot: another web site open in a visitor's browser cannot spend the key
// (its request would be cross-site: the browser says so in Sec-Fetch-Site and Origin, and the marker header makes
// it a preflighted request that /v1, which answers no CORS, never lets through). A program that is not a browser
// can send any header it likes, so whoever can reach the server can translate on the shared key: that is what the
// setting means, and why it is off by default and meant for a server on an internal network (docs/web-page.md).
import type { FastifyRequest } from 'fastify';

/** The header the page sends with every /v1 call made without a key, and its one value. */
export const PAGE_MARKER_HEADER = 'x-dragoman-client';
export const PAGE_MARKER = 'web-page';

/** What the page may do on the shared key: translate, detect, list languages, read the key's usage. Not signup, not documents, not the compatibility surfaces. */
export const PAGE_KEY_ROUTES: ReadonlySet<string> = new Set([
  'POST /v1/translate',
  'POST /v1/detect',
  'GET /v1/languages',
  'GET /v1/usage',
]);

function single(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * True when `request` is one of the page's calls on the shared key: one of PAGE_KEY_ROUTES, carrying the marker,
 * and, where the browser states where it comes from, from this origin. Browsers since 2020-2023 send
 * Sec-Fetch-Site with every fetch, and Origin with every POST; both must then name this very origin.
 */
export function isPageRequest(request: FastifyRequest): boolean {
  if (!PAGE_KEY_ROUTES.has(`${request.method} ${request.routeOptions.url ?? ''}`)) return false;
  if (single(request, PAGE_MARKER_HEADER) !== PAGE_MARKER) return false;
  const site = single(request, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = single(request, 'origin');
  if (origin !== undefined) {
    try {
      if (new URL(origin).host !== request.host) return false;
    } catch {
      return false; // "null" (a sandboxed frame, a file) or garbage: not the page.
    }
  }
  return true;
}
