// buildServer(deps): the Fastify app. One error handler and one not-found handler shape every error as the
// /v1 body (a surface with another body shape sets its own inside its plugin), every response carries
// X-Request-Id, and each surface is an encapsulated plugin from its own folder, registered below.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { KEY_PREFIX } from '../accounts/keys.ts';
import { ApiError } from '../errors/api-error.ts';
import type { DragomanContext } from './context.ts';
import { badUrl, clientError, trackRequestPaths } from './connection-errors.ts';
import { errorBody, logServerFailure, toApiError } from './errors.ts';
import { installJsonBodyParser, refuseContentEncodings } from './body-encoding.ts';
import { opsPlugin } from './ops/index.ts';
import { installMetering } from './metering.ts';
import { loggerOptions } from '../observability/logger.ts';
import { readTlsFiles } from './tls.ts';
import { GOOGLE_PREFIX, googleRoutes } from './google/index.ts';
import { LIBRETRANSLATE_PREFIX, libreTranslateRoutes } from './libretranslate/index.ts';
import { uiRoutes } from './ui/index.ts';
import { ADMIN_PREFIX, adminRoutes } from './admin/index.ts';
import { v1Routes } from './v1/index.ts';
import { deeplV2Routes, deeplV3Routes } from './deepl/index.ts';

/** What the server is handed, built by the composition root (src/app.ts): the context its routes find, and how it logs. */
export interface ServerDeps extends DragomanContext {
  /** The process's logger (src/observability/logger.ts); the server's request lines go through it. */
  log: FastifyBaseLogger;
  /** Tests only: how long a request may take to arrive whole (60 s). */
  requestTimeoutMs?: number;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

// JSON-line logging (fields, redaction) is owned by src/observability; re-exported for the tests that build servers.
export { loggerOptions };

function trustHops(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const requestTimeoutMs = deps.requestTimeoutMs ?? 60_000;
  // Node's server settings; with DRAGOMAN_TLS_* the same settings on an HTTPS server.
  const serverOptions = { connectionsCheckingInterval: Math.min(5_000, requestTimeoutMs), headersTimeout: Math.min(60_000, requestTimeoutMs) };
  const app = Fastify({
    ...(config.tls ? { https: { ...serverOptions, ...readTlsFiles(config.tls) } } : { http: serverOptions }),
    loggerInstance: deps.log,
    bodyLimit: config.maxBodyBytes,
    // request.ip (per-address throttles, logs) is the client's only when the proxy in front is trusted to say so.
    // (n hops as proxy-addr's trust function, as Fastify builds it: its types leave the number out).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    // A caller's own id is kept when it is sane, so logs can be joined across services.
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      // ...unless it looks like an API key: ids are logged.
      return typeof given === 'string' && REQUEST_ID.test(given) && !given.includes(KEY_PREFIX) ? given : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
    // `POST /v1/translate/` is the same endpoint (clients built by string concatenation send it).
    routerOptions: { ignoreTrailingSlash: true },
    // A request must arrive whole within a minute (1 MiB needs 17 KB/s): a client that stalls mid-body would
    // otherwise hold its connection for ever (Fastify's default is no limit). Answered 408 in the error body.
    requestTimeout: requestTimeoutMs,
    // Node looks for late requests every 30 s by default (a stalled request was cut at 60-90 s), and its headers
    // timeout (60 s) must not exceed the request timeout for the latter to apply.
    frameworkErrors: badUrl,
    clientErrorHandler: clientError,
    // A "__proto__" key in a body is dropped, not a 400 that calls valid JSON malformed.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
  });

  const { service, accounts, gate, engine, detector, clock, documents, demo } = deps;
  const context: DragomanContext = { config, service, accounts, gate, engine, detector, clock, documents, ...(demo && { demo }) };
  app.decorate('dragoman', context);
  // Unfinished jobs of a server that stopped are taken over once this one serves; running ones stop before
  // their next batch when it closes (the next start finishes them).
  app.addHook('onReady', async () => documents.start());
  app.addHook('onClose', async () => documents.close());

  installJsonBodyParser(app);
  refuseContentEncodings(app);
  trackRequestPaths(app);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  installMetering(app, gate);

  // Methods per path, to answer 405 (with Allow) instead of 404 when only the method is wrong.
  const methods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const set = methods.get(route.url) ?? new Set<string>();
    for (const m of [route.method].flat()) set.add(m);
    methods.set(route.url, set);
  });

  app.setErrorHandler(async (error, request, reply) => {
    const api = toApiError(error, config.maxBodyBytes);
    logServerFailure(request.log, api, error);
    return reply.code(api.status).headers(api.headers).type('application/json; charset=utf-8').send(errorBody(api));
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const allowed = methods.get(path) ?? methods.get(path.replace(/\/$/, ''));
    const api = allowed && !allowed.has(request.method)
      ? new ApiError(405, 'invalid_request', `Method ${request.method} is not allowed on ${path}: use ${[...allowed].join(', ')}.`, {
          allow: [...allowed].join(', '),
        })
      : new ApiError(
          404,
          'invalid_request',
          `Unknown endpoint ${request.method} ${path.slice(0, 100)}. The API is POST /v1/translate, POST /v1/detect, ` +
            `POST /v1/documents (and GET/DELETE /v1/documents/{id}, GET /v1/documents/{id}/result), ` +
            (config.signup ? `GET /v1/languages, GET /v1/usage and POST /v1/signup.` : `GET /v1/languages and GET /v1/usage.`),
        );
    return reply.code(api.status).headers(api.headers).type('application/json; charset=utf-8').send(errorBody(api));
  });

  // ── Surfaces: one encapsulated plugin per folder, one line each. ─────────────────────────────────────────
  // ops first: /health, /ready, /metrics, /docs, and the hooks and OpenAPI collector that must see every route.
  await app.register(opsPlugin);
  await app.register(v1Routes, { prefix: '/v1' });
  if (config.googleCompat) await app.register(googleRoutes, { prefix: GOOGLE_PREFIX });
  if (config.libreTranslateCompat) await app.register(libreTranslateRoutes, { prefix: LIBRETRANSLATE_PREFIX });
  if (config.deeplCompat) {
    await app.register(deeplV2Routes, { prefix: '/v2' });
    await app.register(deeplV3Routes, { prefix: '/v3' });
  }
  if (config.ui) await app.register(uiRoutes);
  if (config.adminToken) await app.register(adminRoutes, { prefix: ADMIN_PREFIX });
  // (deepl v2/v3: src/http/deepl/; google v2: src/http/google/, libretranslate: src/http/libretranslate/, ui: src/http/ui/, admin: src/http/admin/, ops: src/http/ops/)
  // ── end of surfaces ─────────────────────────────────────────────────────────────────────────────────────

  return app;
}
