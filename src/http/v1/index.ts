// The /v1 API of the interface specification, as one encapsulated plugin. Its onRequest hook refuses a key
// in the query string and admits the request (key + rate limit) before the body is even parsed, so every
// /v1 call but signup is authenticated and counted.
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { admit } from '../metering.ts';
import { isPageRequest } from '../page-key.ts';
import { headerValues, keyNamesInQuery, oneKey } from '../presented-keys.ts';
import { detectRoutes } from './detect.ts';
import { documentsRoutes } from './documents.ts';
import { languagesRoutes } from './languages.ts';
import { signupRoutes } from './signup.ts';
import { translateRoutes } from './translate.ts';
import { usageRoutes } from './usage.ts';
import { glossaryRoutes } from './glossaries.ts';
import { memoryRoutes } from './memories.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Route needs no API key (signup). */
    public?: boolean;
  }
}

export async function v1Routes(app: FastifyInstance): Promise<void> {
  // The specification's bodies are JSON only: without Fastify's default text/plain parser, any other
  // content type is a 415 that says to send JSON, instead of a confusing schema error about the body.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (request, reply) => {
    const inQuery = keyNamesInQuery(request);
    if (inQuery.length > 0) {
      throw new ApiError(
        401,
        'authentication_error',
        `API keys are not accepted in the query string (?${inQuery[0]!.slice(0, 20)}=) on /v1: pass the key in the X-API-Key header.`,
      );
    }
    if (request.routeOptions.config.public) return;
    const secret = oneKey(
      headerValues(request, 'x-api-key'),
      () => new ApiError(400, 'invalid_request', 'The request presents two different API keys (X-API-Key sent twice): send one.'),
    );
    // The web page without a key, when the operator lets it use a shared key (page-key.ts says what counts).
    const shared = secret === undefined && request.headers['x-api-key'] === undefined ? app.dragoman.config.uiKey : undefined;
    // `Authorization: Bearer` is how many APIs take a key, and /metrics reads it: say that /v1 does not, rather than
    // a bare "Missing API key" to a client that believes it sent one.
    if (secret === undefined && request.headers.authorization !== undefined && !(shared && isPageRequest(request))) {
      throw new ApiError(
        401,
        'authentication_error',
        'Missing API key: /v1 ignores the Authorization header. Send the key in the X-API-Key header (X-API-Key: dk_…).',
      );
    }
    await admit(app.dragoman.gate, request, reply, secret, shared && isPageRequest(request) ? shared : undefined);
  });

  await app.register(translateRoutes);
  await app.register(detectRoutes);
  await app.register(languagesRoutes);
  await app.register(usageRoutes);
  await app.register(documentsRoutes);
  await app.register(glossaryRoutes);
  await app.register(memoryRoutes);
  if (app.dragoman.config.signup) await app.register(signupRoutes);
}
