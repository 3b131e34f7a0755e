// POST /v2/translate (and GET, as DeepL allows): DeepL's parameters onto the service. Billed characters are the
// characters of `text` exactly as /v1/usage counts them (code points); `context` is read and never billed.
import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../errors/api-error.ts';
import type { TranslateOptions } from '../../service/types.ts';
import { codePoints } from '../../service/validate.ts';
import { charge, clientGone, settleMemory } from '../metering.ts';
import { MODEL_HEADER, modelHeaderValue } from '../translate-headers.ts';
import { deeplSourceCode, fromDeepL } from './languages.ts';
import { checkFormality, flag, glossaryIdOf, listOf, memoryOf, oneOf, requestFields, single, type Fields } from './params.ts';

/** What /v2/translate makes of its parameters, before the service sees them. */
export function translateOptions(fields: Fields, owner: string) {
  const text = listOf(fields.text);
  if (fields.text === undefined) throw invalidRequest("Parameter 'text' not specified.");
  if (text.length === 0) throw invalidRequest("Value for 'text' not supported.");
  if (fields.target_lang === undefined || fields.target_lang === '') throw invalidRequest("Parameter 'target_lang' not specified.");
  const target = fromDeepL('target_lang', single(fields, 'target_lang'))!;
  const source = fromDeepL('source_lang', single(fields, 'source_lang'));
  const tagHandling = oneOf(fields, 'tag_handling', ['html', 'xml'] as const);
  // DeepL's default is 1, or nonewlines when tags are handled.
  const split = oneOf(fields, 'split_sentences', ['0', '1', 'nonewlines'] as const) ?? (tagHandling ? 'nonewlines' : '1');
  flag(fields, 'preserve_formatting');
  flag(fields, 'outline_detection');
  listOf(fields.non_splitting_tags, true);
  listOf(fields.splitting_tags, true);
  const ignoreTags = listOf(fields.ignore_tags, true).map((t) => t.toLowerCase());
  const context = fields.context;
  if (context !== undefined && typeof context !== 'string') throw invalidRequest("Value for 'context' not supported.");
  checkFormality(fields);
  const modelType = oneOf(fields, 'model_type', ['quality_optimized', 'prefer_quality_optimized', 'latency_optimized'] as const);
  const billed = flag(fields, 'show_billed_characters') ?? false;
  const glossaryId = glossaryIdOf(fields, source !== undefined);
  const memory = memoryOf(fields, owner);
  const options: TranslateOptions = {
    ...(glossaryId ? { glossary: { owner, id: glossaryId } } : {}),
    ...(memory ? { memory } : {}),
    ...(ignoreTags.length ? { ignoreTags } : {}),
    sentences: split === '0' ? 'whole' : split === 'nonewlines' ? 'nonewlines' : 'split',
  };
  return { text, target, source, format: tagHandling ? 'html' as const : 'text' as const, options, modelType, billed };
}

export async function translateRoutes(app: FastifyInstance): Promise<void> {
  const { service, gate, config } = app.dragoman;
  app.route({
    method: ['GET', 'POST'],
    url: '/translate',
    schema: { summary: 'Translate text (DeepL: text, target_lang, source_lang, tag_handling, glossary_id)' },
    handler: async (request, reply) => {
      const fields = requestFields(request.query, request.body);
      const p = translateOptions(fields, request.metering!.admission!.key.id);
      const req = service.prepareTranslate({ q: p.text, target: p.target.code, source: p.source?.code, format: p.format, stringsField: 'text' }, p.options);
      await charge(gate, request, req.chars);
      const result = await service.translate(req, clientGone(request));
      await settleMemory(gate, request, result.memoryChars, config.memoryCharged);
      reply.header(MODEL_HEADER, modelHeaderValue(result.routes));
      return {
        translations: result.translations.map((t) => ({
          detected_source_language: p.source ? deeplSourceCode(p.source) : detectedCode(t.detectedSourceLanguage),
          text: t.translatedText,
          ...(p.billed ? { billed_characters: codePoints(t.input) } : {}),
          // One kind of model serves every pair here: DeepL's classic, latency-optimised kind.
          ...(p.modelType ? { model_type_used: 'latency_optimized' } : {}),
        })),
      };
    },
  });
}

/** A detected public code in DeepL's casing (ZH for both Chinese scripts); `und` when nothing was detected. */
function detectedCode(code: string | undefined): string {
  if (!code || code === 'und') return 'UND';
  const lang = fromDeepLSafe(code);
  return lang ? deeplSourceCode(lang) : code.toUpperCase();
}

function fromDeepLSafe(code: string) {
  try {
    return fromDeepL('source_lang', code);
  } catch {
    return undefined;
  }
}
