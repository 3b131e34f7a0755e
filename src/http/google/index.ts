// The Google Translate v2 surface at /language/translate/v2, an encapsulated plugin: its own form parser,
// error body and 404, and an onRequest hook that finds the key (headers, or ?key= when allowed) and admits
// the request (authentication + rate limit) through the shared metering before anything is parsed.
import type { FastifyInstance } from 'fastify';
import { AuthenticationFailed } from '../../accounts/errors.ts';
import { ApiError } from '../../errors/api-error.ts';
import { logServerFailure, toApiError } from '../errors.ts';
import { FormCollector, formLimits, registerFormParser } from '../form-body.ts';
import { admit } from '../metering.ts';
import { detectRoutes } from './detect.ts';
import { GoogleError, googleError, keyInvalid, missingKey } from './errors.ts';
import { googleKey } from './keys.ts';
import { languagesRoutes } from './languages.ts';
import { translateRoutes } from './translate.ts';

export const GOOGLE_PREFIX = '/language/translate/v2';

const PATHS = new Set(['', '/', '/detect', '/languages']);

export async function googleRoutes(app: FastifyInstance): Promise<void> {
  const { config, gate } = app.dragoman;
  // Form bodies as the query string reads them: a repeated field is a list (q=a&q=b), within the request limits.
  const limits = formLimits(config);
  registerFormParser(app, () => new FormCollector(limits, () => true));

  app.setErrorHandler(async (error, request, reply) => {
    const e = error instanceof GoogleError ? error : toApiError(error, config.maxBodyBytes);
    if (e instanceof ApiError) logServerFailure(request.log, e, error);
    const headers = e instanceof ApiError ? e.headers : {};
    const body = googleError(e);
    return reply.code(body.error.code).headers(headers).type('application/json; charset=utf-8').send(body);
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]!;
    const rest = path.slice(GOOGLE_PREFIX.length).replace(/\/$/, '');
    const e = PATHS.has(rest)
      ? new ApiError(405, 'invalid_request', `Method ${request.method} is not allowed on ${path}: use GET or POST.`, {
          allow: 'GET, POST',
        })
      : new ApiError(
          404,
          'invalid_request',
          `Unknown endpoint ${request.method} ${path.slice(0, 100)}. This surface has ${GOOGLE_PREFIX} (translate), ` +
            `${GOOGLE_PREFIX}/detect and ${GOOGLE_PREFIX}/languages.`,
        );
    const body = googleError(e);
    return reply.code(e.status).headers(e.headers).type('application/json; charset=utf-8').send(body);
  });

  // Fastify reads text/plain as a string: the parameters are not in it, and "Missing required field 'q'" would mislead.
  app.addHook('preValidation', async (request) => {
    if (/^text\/plain\b/i.test(request.headers['content-type'] ?? '') && typeof request.body === 'string' && request.body !== '') {
      throw new ApiError(415, 'invalid_request', 'Unsupported Content-Type: text/plain.');
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return;
    const secret = googleKey(request, config.googleKeyInQuery);
    if (secret === undefined) throw missingKey();
    try {
      await admit(gate, request, reply, secret);
    } catch (err) {
      if (err instanceof AuthenticationFailed) throw keyInvalid(toApiError(err, config.maxBodyBytes));
      throw err;
    }
  });

  await app.register(translateRoutes);
  await app.register(detectRoutes);
  await app.register(languagesRoutes);
}
