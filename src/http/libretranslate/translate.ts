// POST /translate: q (string or array), source (code or auto), target, format, alternatives (n-best), and this
// server's `memory` (a translation memory of the key: its exact sentences as stored) and `model` ("quality", "speed"
// or an installed model's name, as on /v1: LibreTranslate has one kind of model and no field of its own for it).
import type { FastifyInstance } from 'fastify';
import type { TranslationItem } from '../../service/types.ts';
import { charge, clientGone, settleMemory } from '../metering.ts';
import { libreAlternatives, libreBody, libreCode, libreQ, libreSource, percent } from './params.ts';
import { routeDoc } from './schemas.ts';
import { modelChoiceOf } from '../../service/model-choice.ts';
import { memoryField } from '../memory-field.ts';
import { CHECK_HEADER, MODEL_HEADER, checkHeaderValue, modelHeaderValue } from '../translate-headers.ts';

function detectedLanguage(t: TranslationItem): { confidence: number; language: string } {
  return { confidence: percent(t.detection?.confidence ?? 0), language: t.detectedSourceLanguage ?? 'und' };
}

/** Other translations, distinct from the best one and from each other. */
function alternativesOf(t: TranslationItem): string[] {
  const seen = new Set([t.translatedText]);
  return (t.alternatives ?? []).filter((a) => !seen.has(a) && seen.add(a));
}

export async function translateRoutes(app: FastifyInstance): Promise<void> {
  const { service, gate, config } = app.dragoman;
  app.post('/translate', { schema: routeDoc('Translate text (LibreTranslate)') }, async (request, reply) => {
    const body = libreBody(request.body);
    const q = libreQ(body.q);
    const alternatives = libreAlternatives(body.alternatives);
    const memory = memoryField(body.memory, request.metering!.admission!.key.id);
    const model = modelChoiceOf(body.model);
    const req = service.prepareTranslate(
      { q, target: libreCode(body.target), source: libreSource(body.source), format: body.format },
      { ...(alternatives > 0 ? { alternatives } : {}), ...(memory ? { memory } : {}), ...(model ? { model } : {}) },
    );
    await charge(gate, request, req.chars);
    const result = await service.translate(req, clientGone(request));
    await settleMemory(gate, request, result.memoryChars, config.memoryCharged);
    reply.header(MODEL_HEADER, modelHeaderValue(result.routes));
    if (result.check) reply.header(CHECK_HEADER, checkHeaderValue(result.check));
    const items = result.translations;
    const one = <T>(f: (t: TranslationItem) => T): T | T[] => (req.single ? f(items[0]!) : items.map(f));
    return {
      translatedText: one((t) => t.translatedText),
      ...(req.source ? {} : { detectedLanguage: one(detectedLanguage) }),
      ...(alternatives > 0 ? { alternatives: one(alternativesOf) } : {}),
    };
  });
}
