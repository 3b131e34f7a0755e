// The service as one object, bound to its dependencies, for the wire formats.
import type { Config } from '../config/env.ts';
import { prepareDetect, runDetect } from './detect.ts';
import { listLanguages } from './languages.ts';
import { prepareTranslate, runTranslate } from './translate.ts';
import type {
  AnyPlan,
  DetectInput,
  DetectionItem,
  DetectRequest,
  Format,
  LanguageEntry,
  ServiceDeps,
  TranslateInput,
  TranslateOptions,
  TranslateRequest,
  TranslateResult,
} from './types.ts';

export interface Service {
  readonly deps: ServiceDeps;
  /** Validate and count characters (throws ApiError 400); no work done yet. */
  prepareTranslate(input: TranslateInput, options?: TranslateOptions): TranslateRequest;
  /**
   * The sentences one string is translated as, and how their translations go back together (html: its markup kept
   * aside), as translate() makes them; a caller that needs them first (a document, to count its characters) hands
   * them back in TranslateRequest.plans so they are not made twice.
   */
  plan(content: string, format: Format): AnyPlan | Promise<AnyPlan>;
  /** `signal`: aborted when the client has gone (its sentences still waiting for the engine are dropped). */
  translate(req: TranslateRequest, signal?: AbortSignal): Promise<TranslateResult>;
  prepareDetect(input: DetectInput): DetectRequest;
  detect(req: DetectRequest): Promise<DetectionItem[]>;
  languages(displayLanguage?: unknown): LanguageEntry[];
}

export function createService(deps: ServiceDeps): Service {
  return {
    deps,
    prepareTranslate: (input, options) => prepareTranslate(deps, input, options),
    plan: (content, format) => (format === 'html' ? deps.planners.html(content) : deps.planners.text(content)),
    translate: (req, signal) => runTranslate(deps, req, signal),
    prepareDetect: (input) => prepareDetect(deps, input),
    detect: (req) => runDetect(deps, req),
    languages: (display) => listLanguages(deps, display),
  };
}

/**
 * The service as the settings make it: what `dragoman serve` answers with and what `dragoman translate` runs, so a
 * document comes out the same both ways (DRAGOMAN_KEEP_SPANS, DRAGOMAN_OUTPUT_CHECK, the limits; glossaries where there are some).
 */
export function serviceFromConfig(
  deps: Omit<ServiceDeps, 'config' | 'keepSpans' | 'bulkCharacters' | 'outputCheck'>
    & { config: Pick<Config, 'maxStrings' | 'maxChars' | 'keepSpans' | 'bulkCharacters' | 'outputCheck'> },
): Service {
  const { keepSpans, bulkCharacters, outputCheck } = deps.config;
  return createService({ ...deps, keepSpans, bulkCharacters, outputCheck });
}

export type * from './types.ts';
