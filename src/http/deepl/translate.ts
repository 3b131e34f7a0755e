// POST /v2/translate (and GET, as DeepL allows): DeepL's parameters onto the service. Billed characters are the
// characters of `text` exactly as /v1/usage counts them (code points); `context` is read and never billed.
// model_type chooses the kind of model (docs/deepl.md#model-type): latency_optimized (DeepL's default) an
// encoder-decoder route, quality_optimized an LLM translator of the pair or DeepL's refusal, prefer_quality_optimized
// one when installed. context, custom_instructions and formality reach an LLM translator's prompt as its
// dragoman.json words them; where DeepL never refuses (context, prefer_* formality) a model without the wording
// leaves them out, and X-Dragoman-Unused names them.
import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../errors/api-error.ts';
import { MAX_INSTRUCTION_CHARS, MAX_INSTRUCTIONS, UnsupportedChoice } from '../../service/model-choice.ts';
import type { PromptPart, TranslateOptions, TranslateResult } from '../../service/types.ts';
import { codePoints } from '../../service/validate.ts';
import { charge, clientGone, settleMemory } from '../metering.ts';
import { CHECK_HEADER, MODEL_HEADER, UNUSED_HEADER, checkHeaderValue, modelHeaderValue } from '../translate-headers.ts';
import { DeepLRefusal } from './errors.ts';
import { deeplSourceCode, fromDeepL } from './languages.ts';
import { flag, formalityOf, glossaryIdOf, instructionsOf, listOf, memoryOf, oneOf, requestFields, single, type Fields } from './params.ts';

const MODEL_TYPES = ['quality_optimized', 'prefer_quality_optimized', 'latency_optimized'] as const;

/** The service's refusal of a model choice or a prompt part, as DeepL words it. */
function asDeepL(e: UnsupportedChoice): DeepLRefusal {
  const message = e.option === 'formality' ? "'formality' is not supported for given 'target_lang'."
    : e.option === 'instructions' ? "Value for 'custom_instructions' not supported."
      : e.option === 'context' ? "Value for 'context' not supported." : "Value for 'model_type' not supported.";
  return new DeepLRefusal(message, e.message.replaceAll("'instructions'", "'custom_instructions'"));
}

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
  const formality = formalityOf(fields);
  const instructions = instructionsOf(fields, MAX_INSTRUCTIONS, MAX_INSTRUCTION_CHARS);
  const modelType = oneOf(fields, 'model_type', MODEL_TYPES);
  // Custom instructions take a quality-optimized model, and DeepL rejects them with latency_optimized.
  if (instructions.length && modelType === 'latency_optimized') {
    throw new DeepLRefusal("Value for 'model_type' not supported.", "'custom_instructions' need a quality_optimized model; latency_optimized cannot take them.");
  }
  const kind = modelType === 'quality_optimized' || (instructions.length && !modelType) ? { kind: 'quality' as const, strict: true }
    : modelType === 'prefer_quality_optimized' ? { kind: 'quality' as const } : { kind: 'speed' as const };
  const optional: PromptPart[] = ['context', ...(formality && !formality.required ? ['formality' as const] : [])];
  const billed = flag(fields, 'show_billed_characters') ?? false;
  const glossaryId = glossaryIdOf(fields, source !== undefined);
  const memory = memoryOf(fields, owner);
  const options: TranslateOptions = {
    ...(glossaryId ? { glossary: { owner, id: glossaryId } } : {}),
    ...(memory ? { memory } : {}),
    ...(ignoreTags.length ? { ignoreTags } : {}),
    sentences: split === '0' ? 'whole' : split === 'nonewlines' ? 'nonewlines' : 'split',
    model: kind,
    prompt: {
      ...(context?.trim() ? { context } : {}), ...(instructions.length ? { instructions } : {}),
      ...(formality ? { formality: formality.level } : {}), optional,
    },
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
      const result: TranslateResult = await service.translate(req, clientGone(request)).catch((e: unknown) => {
        throw e instanceof UnsupportedChoice ? asDeepL(e) : e;
      });
      await settleMemory(gate, request, result.memoryChars, config.memoryCharged);
      reply.header(MODEL_HEADER, modelHeaderValue(result.routes));
      if (result.check) reply.header(CHECK_HEADER, checkHeaderValue(result.check));
      if (result.unused.length) reply.header(UNUSED_HEADER, result.unused.join(', '));
      return {
        translations: result.translations.map((t) => ({
          detected_source_language: p.source ? deeplSourceCode(p.source) : detectedCode(t.detectedSourceLanguage),
          text: t.translatedText,
          ...(p.billed ? { billed_characters: codePoints(t.input) } : {}),
          ...(p.modelType ? { model_type_used: result.languageModel ? 'quality_optimized' : 'latency_optimized' } : {}),
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
