// The X-Dragoman-* headers of translate responses. X-Dragoman-Model on every surface: the models that served it, a pivot as `a>b`, each
// route once in the order first used; `none` when no model ran (source = target, nothing to translate).
export const MODEL_HEADER = 'x-dragoman-model';

export function modelHeaderValue(routes: readonly (readonly string[])[]): string {
  const names = [...new Set(routes.filter((r) => r.length > 0).map((r) => r.join('>')))];
  return names.length ? names.join(', ') : 'none';
}

/** /v1/translate without source: the confidence of each string's detection, in the order of q (0 for `und`). */
export const DETECTED_CONFIDENCE_HEADER = 'x-dragoman-detected-confidence';

/** What a request added to the prompt that the route's model took no wording for, so it was left out (DeepL's context). */
export const UNUSED_HEADER = 'x-dragoman-unused';

/**
 * When an LLM translator answered: how many of its answers were judged, answered again by the pair's NMT model, and
 * failed with no NMT model to ask (kept, and marked here and in /v1's body): docs/models.md#answers-checked.
 */
export const CHECK_HEADER = 'x-dragoman-answer-check';

export function checkHeaderValue(check: { judged: number; replaced: number; failed: number }): string {
  return `judged=${check.judged}, replaced=${check.replaced}, failed=${check.failed}`;
}
