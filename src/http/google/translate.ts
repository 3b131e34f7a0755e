// Translate at the bare path, GET and POST: POST {base}?key=K is what the official Node client sends.
import type { FastifyInstance } from 'fastify';
import { charge, clientGone, settleMemory } from '../metering.ts';
import { googleParams } from './params.ts';
import { routeDoc } from './schemas.ts';
import { memoryField } from '../memory-field.ts';
import { MODEL_HEADER, modelHeaderValue } from '../translate-headers.ts';

export async function translateRoutes(app: FastifyInstance): Promise<void> {
  const { service, gate, config } = app.dragoman;
  app.route({
    method: ['GET', 'POST'],
    url: '/',
    schema: routeDoc('Translate text (Google v2: q, target, source, format = html by default, model)'),
    handler: async (request, reply) => {
      const p = googleParams(request.query, request.body);
      // Google's default is html: plain text comes back entity-escaped, like Google's does.
      // `memory` is this server's own parameter: a translation memory of the key, its exact sentences as stored.
      const memory = memoryField(p.memory, request.metering!.admission!.key.id);
      const req = service.prepareTranslate({ q: p.q, target: p.target, source: p.source, format: p.format ?? 'html' }, memory ? { memory } : {});
      await charge(gate, request, req.chars);
      const result = await service.translate(req, clientGone(request));
      await settleMemory(gate, request, result.memoryChars, config.memoryCharged);
      reply.header(MODEL_HEADER, modelHeaderValue(result.routes));
      // `model` is accepted for compatibility; the only model there is answers as Google's neural one.
      const model = p.model !== undefined ? { model: 'nmt' } : {};
      return {
        data: {
          translations: result.translations.map((t) => ({
            translatedText: t.translatedText,
            ...(req.source ? {} : { detectedSourceLanguage: t.detectedSourceLanguage }),
            ...model,
          })),
        },
      };
    },
  });
}
