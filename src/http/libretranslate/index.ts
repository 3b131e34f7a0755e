// The LibreTranslate surface at /libretranslate, an encapsulated plugin: its own form parsers, CORS, error
// body and 404. Keyed routes are admitted (key + rate limit, shared metering) in preHandler, because the key
// is in the body. The keyless ones (languages, frontend settings) are limited per client address instead
// (DRAGOMAN_KEYLESS_RPM, generous by default: the npm client asks for /languages before every translate()).
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { logServerFailure, toApiError } from '../errors.ts';
import { admit } from '../metering.ts';
import { registerFormParsers } from './bodies.ts';
import { installCors } from './cors.ts';
import { detectRoutes } from './detect.ts';
import { fileRoutes } from './files.ts';
import { KEY_HINT, LIBRETRANSLATE_PREFIX, libreError, libreStatus } from './errors.ts';
import { libreKey } from './keys.ts';
import { languagesRoutes } from './languages.ts';
import { translateRoutes } from './translate.ts';

export { LIBRETRANSLATE_PREFIX };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** LibreTranslate route answered without a key (languages, settings, CORS preflight). */
    keyless?: boolean;
  }
}

const ROUTES: Record<string, string> = {
  '/translate': 'POST',
  '/translate_file': 'POST',
  '/detect': 'POST',
  '/languages': 'GET',
  '/frontend/settings': 'GET',
};

export async function libreTranslateRoutes(app: FastifyInstance): Promise<void> {
  const { config, gate } = app.dragoman;
  await registerFormParsers(app);
  installCors(app, Object.keys(ROUTES));

  app.setErrorHandler(async (error, request, reply) => {
    const e = toApiError(error, config.maxBodyBytes);
    logServerFailure(request.log, e, error);
    return reply.code(libreStatus(e)).headers(e.headers).type('application/json; charset=utf-8').send(libreError(e));
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const method = ROUTES[path.slice(LIBRETRANSLATE_PREFIX.length).replace(/\/$/, '')];
    const e = method
      ? new ApiError(405, 'invalid_request', `Method ${request.method} is not allowed on ${path}: use ${method}.`, {
          allow: method,
        })
      : new ApiError(
          404,
          'invalid_request',
          `Unknown endpoint ${request.method} ${path.slice(0, 100)}. This surface has POST /translate, POST /detect, ` +
            `POST /translate_file, GET /languages and GET /frontend/settings under ${LIBRETRANSLATE_PREFIX}.`,
        );
    return reply.code(e.status).headers(e.headers).type('application/json; charset=utf-8').send(libreError(e));
  });

  app.addHook('preHandler', async (request, reply) => {
    if (request.is404) return;
    if (request.routeOptions.config.keyless) {
      // A CORS preflight is the browser's, before a keyed request that is counted anyway.
      if (request.method !== 'OPTIONS') gate.admitKeyless(request.ip);
      return;
    }
    const secret = libreKey(request);
    if (secret === undefined) {
      throw new ApiError(403, 'authentication_error', `Missing API key. ${KEY_HINT}`);
    }
    await admit(gate, request, reply, secret);
  });

  await app.register(translateRoutes);
  await app.register(detectRoutes);
  await app.register(languagesRoutes);
  await app.register(fileRoutes);
}
