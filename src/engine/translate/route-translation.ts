// A request's segments along its route: one hop per model (translate/hop.ts), a pivot through English between two.
import type { EventEmitter } from 'node:events';
import { NoRoute } from '../errors.ts';
import { constraintsForNextHop } from '../search/phrases.ts';
import type { EngineResult, SegmentConstraint, TranslateOptions } from '../types.ts';
import { HAS_LETTER, type HopTranslator, type LoadedModel } from './hop.ts';
import type { Router } from './router.ts';

export interface RouteParts {
  router: Router;
  hops: HopTranslator;
  /** Loads a model of the route when needed and holds it while its hop runs (resident-models.ts). */
  models: { use<T>(name: string, work: (model: LoadedModel) => Promise<T>): Promise<T> };
  /** Gets 'route' (the model names) for every routed request. */
  events: EventEmitter;
}

export async function translateRoute(
  parts: RouteParts, segments: string[], source: string, target: string, opts: TranslateOptions = {},
): Promise<EngineResult> {
  const { router, hops, models, events } = parts;
  const route = router.route(source, target, opts.model);
  if (!route) throw new NoRoute(source, target);
  if (!route.length) return { translations: [...segments], route };
  // Nothing with a letter (numbers, symbols, list markers): no model runs, and the route says so (X-Dragoman-Model: none).
  if (!segments.some((s) => HAS_LETTER.test(s))) return { translations: segments.map((s) => (s.trim() ? s : '')), route: [] };
  events.emit('route', route);
  let texts = segments;
  let alternatives: string[][] | undefined;
  let from = source;
  let constraints: (SegmentConstraint[] | undefined)[] | undefined = opts.constraints;
  for (let h = 0; h < route.length; h++) {
    const to = h === route.length - 1 ? target : 'eng_Latn';
    const last = h === route.length - 1;
    // Alternatives come from the last hop only; earlier hops pass on their best translation.
    // Constraints: all on the last hop; an earlier hop keeps only the spans kept as they are (found again in its output).
    // The prompt: the context (in the source language) for the first model, instructions and register for the last.
    // A document's earlier lines (contexts) are the first model's too; a glossary term's source names it for the
    // first model only (after a pivot the text is English, so the last model reads the term's target alone).
    const { context, ...forTarget } = opts.prompt ?? {};
    const prompt = { ...(h === 0 && context ? { context } : {}), ...(last ? forTarget : {}) };
    // A memory's examples pair the source with the target: only a model translating the one into the other reads them.
    const { contexts, examples, ...rest } = opts;
    const own = { ...(h === 0 && contexts ? { contexts } : {}), ...(route.length === 1 && examples ? { examples } : {}) };
    const hopOpts: TranslateOptions = last
      ? { ...rest, ...own, prompt, ...(constraints ? { constraints: h === 0 ? constraints : constraints.map((c) => c?.map(({ source: _, ...x }) => x)) } : {}) }
      : { beams: opts.beams, signal: opts.signal, priority: opts.priority, prompt, ...own, ...(constraints ? { constraints: constraints.map((c) => c?.filter((x) => x.keep)) } : {}) };
    // One model held at a time (not the whole route): a request never holds memory while it waits for more.
    const hop = await models.use(route[h]!, (model) => hops.translate(model, from, to, texts, hopOpts));
    if (constraints && !last) constraints = constraintsForNextHop(constraints, hop.translations);
    texts = hop.translations;
    if (last && opts.alternatives) alternatives = hop.alternatives;
    from = to;
  }
  return alternatives ? { translations: texts, alternatives, route } : { translations: texts, route };
}
