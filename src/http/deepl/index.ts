// DeepL's API at its own paths (/v2/..., /v3/glossaries...), so an official DeepL client given this server's URL
// works unchanged. Two encapsulated plugins (one per version prefix) share the form parser, DeepL's error
// statuses and bodies, and the onRequest hook that reads `Authorization: DeepL-Auth-Key <key>` and admits the
// request through the shared metering (same keys, plans, limits and usage as every surface).
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { toApiError } from '../errors.ts';
import { FormCollector, formLimits, registerFormParser } from '../form-body.ts';
import { admit } from '../metering.ts';
import { accountRoutes } from './account.ts';
import { deeplKey } from './auth-key.ts';
import { documentRoutes } from './document.ts';
import { setDeepLErrors } from './errors.ts';
import { glossaryPairRoutes, glossaryV2Routes } from './glossaries-v2.ts';
import { glossaryV3Routes } from './glossaries-v3.ts';
import { memoryV3Routes } from './memories.ts';
import { translateRoutes } from './translate.ts';

export { deeplKey } from './auth-key.ts';

function common(app: FastifyInstance): void {
  const { config, gate } = app.dragoman;
  // Form bodies with repeated fields as lists (text=a&text=b), as DeepL reads them.
  const limits = formLimits(config);
  registerFormParser(app, () => new FormCollector(limits, () => true, 'text'));

  setDeepLErrors(app, (error) => toApiError(error, config.maxBodyBytes));

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0]!.slice(0, 100);
    return reply.code(404).type('application/json; charset=utf-8').send({ message: `Not found: ${request.method} ${path}.` });
  });

  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return;
    const secret = deeplKey(request);
    // A memory job's upload and download URLs carry their own capability (a token), as DeepL's pre-signed URLs do.
    if (request.routeOptions.config.public && secret === undefined) return;
    if (secret === undefined) {
      throw new ApiError(401, 'authentication_error', 'Missing or malformed Authorization header: send "Authorization: DeepL-Auth-Key <key>".');
    }
    await admit(gate, request, reply, secret);
  });
}

export async function deeplV2Routes(app: FastifyInstance): Promise<void> {
  common(app);
  await app.register(translateRoutes);
  await app.register(accountRoutes);
  await app.register(glossaryV2Routes);
  await app.register(glossaryPairRoutes);
  await app.register(documentRoutes);
}

export async function deeplV3Routes(app: FastifyInstance): Promise<void> {
  common(app);
  await app.register(glossaryV3Routes);
  await app.register(memoryV3Routes);
}
