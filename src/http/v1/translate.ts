// POST /v1/translate
import type { FastifyInstance } from 'fastify';
import type { TranslateInput } from '../../service/types.ts';
import { charge, clientGone, settleMemory } from '../metering.ts';
import { invalidRequest } from '../../errors/api-error.ts';
import { modelChoiceOf } from '../../service/model-choice.ts';
import { translateSchema } from './schemas.ts';
import { CHECK_HEADER, DETECTED_CONFIDENCE_HEADER, MODEL_HEADER, checkHeaderValue, modelHeaderValue } from '../translate-headers.ts';

export async function translateRoutes(app: FastifyInstance): Promise<void> {
  const { service, gate, config } = app.dragoman;
  app.post('/translate', { schema: translateSchema }, async (request, reply) => {
    const body = request.body as TranslateInput & {
      glossary?: string | null; memory?: string | null; memoryThreshold?: number; matches?: boolean; memoryUpdate?: boolean;
      model?: string | null; context?: string | null; instructions?: string[]; formality?: 'default' | 'more' | 'less' | null;
    };
    const owner = request.metering!.admission!.key.id;
    const model = modelChoiceOf(body.model);
    const instructions = (body.instructions ?? []).filter((i) => i.trim());
    const req = service.prepareTranslate({ q: body.q, target: body.target, source: body.source, format: body.format }, {
      ...(model ? { model } : {}),
      // Each part is refused with the reason where the route's model takes no wording for it (none is optional here).
      prompt: {
        ...(body.context?.trim() ? { context: body.context } : {}), ...(instructions.length ? { instructions } : {}),
        ...(body.formality === 'more' || body.formality === 'less' ? { formality: body.formality } : {}),
      },
      ...(body.glossary ? { glossary: { owner, id: body.glossary } } : {}),
      ...(body.memory ? {
        memory: {
          owner, id: body.memory, matches: body.matches === true, update: body.memoryUpdate === true,
          ...(body.memoryThreshold !== undefined ? { threshold: body.memoryThreshold } : {}),
        },
      } : {}),
    });
    if (!body.memory && (body.matches || body.memoryUpdate || body.memoryThreshold !== undefined)) {
      throw invalidRequest("'matches', 'memoryThreshold' and 'memoryUpdate' need 'memory': the id of one of the key's translation memories.");
    }
    await charge(gate, request, req.chars);
    const result = await service.translate(req, clientGone(request));
    await settleMemory(gate, request, result.memoryChars, config.memoryCharged);
    reply.header(MODEL_HEADER, modelHeaderValue(result.routes));
    if (result.check) reply.header(CHECK_HEADER, checkHeaderValue(result.check));
    // The detection behind each detectedSourceLanguage, in the order of q, so a client (the web page) that shows it
    // needs no second request to /v1/detect.
    if (!req.source) reply.header(DETECTED_CONFIDENCE_HEADER, result.translations.map((t) => t.detection?.confidence ?? 0).join(', '));
    return {
      data: {
        translations: result.translations.map((t) => ({
          translatedText: t.translatedText,
          ...(req.source ? {} : { detectedSourceLanguage: t.detectedSourceLanguage }),
          input: t.input,
          ...(t.memory ? { memory: { segments: t.memory.segments, exact: t.memory.exact, characters: t.memory.chars } } : {}),
          // An LLM translator's answer that did not pass its check (docs/models.md#answers-checked).
          ...(t.check && (t.check.replaced || t.check.failed) ? { check: t.check } : {}),
          ...(body.matches ? { matches: (t.memory?.matches ?? []).map((m) => ({ segment: m.segment, source: m.source, target: m.target, similarity: m.similarity })) } : {}),
        })),
      },
    };
  });
}
