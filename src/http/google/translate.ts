// Translate at the bare path, GET and POST: POST {base}?key=K is what the official Node client sends.
import type { FastifyInstance } from 'fastify';
import { charge, clientGone, settleMemory } from '../metering.ts';
import { googleParams } from './params.ts';
import { routeDoc } from './schemas.ts';
import { memoryField } from '../memory-field.ts';
import { CHECK_HEADER, MODEL_HEADER, checkHeaderValue, modelHeaderValue } from '../translate-headers.ts';
import { modelChoiceOf } from '../../service/model-choice.ts';
import type { ModelChoice } from '../../engine/types.ts';

/**
 * Google v2's `model`: "nmt" and "base" ask for its neural models, here an encoder-decoder route where the pair has
 * one (an LLM translator otherwise, as Google always answers); "quality", "speed" or a model's name as on /v1.
 */
function googleModel(value: unknown): ModelChoice | undefined {
  if (value === 'nmt' || value === 'base') return { kind: 'speed' };
  return modelChoiceOf(value);
}

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
      const choice = googleModel(p.model);
      const req = service.prepareTranslate({ q: p.q, target: p.target, source: p.source, format: p.format ?? 'html' }, {
        ...(memory ? { memory } : {}), ...(choice ? { model: choice } : {}),
      });
      await charge(gate, request, req.chars);
      const result = await service.translate(req, clientGone(request));
      await settleMemory(gate, request, result.memoryChars, config.memoryCharged);
      reply.header(MODEL_HEADER, modelHeaderValue(result.routes));
      if (result.check) reply.header(CHECK_HEADER, checkHeaderValue(result.check));
      // With `model`, the kind that answered: Google's neural "nmt", or "translation-llm" (Google v3's name for its LLM).
      const model = p.model !== undefined ? { model: result.languageModel ? 'translation-llm' : 'nmt' } : {};
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
