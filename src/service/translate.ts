// Translation: validate, detect each string's language when no source was given, group the strings by
// source language, and make ONE engine call per (source, target) group carrying every segment of every string
// of the group, so the engine can batch them. Results come back in the order of q with the input echoed.
import { ApiError, invalidRequest } from '../errors/api-error.ts';
import { resolveLanguage } from '../languages/catalog.ts';
import type { Language } from '../languages/types.ts';
import { Slices } from './slices.ts';
import { validateFormat, validateLanguage, validateQ } from './validate.ts';
import { segmentConstraints } from './constraints.ts';
import type { TermMatcher } from '../text/terms.ts';
import type { Glossary } from '../glossaries/types.ts';
import { pairMissing } from '../glossaries/book.ts';
import type { Memory } from '../memories/types.ts';
import { markedTarget } from '../memories/inline-codes.ts';
import { codePoints } from './validate.ts';
import { checkChoice, chooseRoute, type ChosenRoute } from './model-choice.ts';
import { checkAnswers, type CheckFailure, type SegmentVerdict } from './output-check.ts';
import { documentContexts } from './document-context.ts';
import type {
  AnyPlan,
  ServiceDeps,
  TranslateInput,
  TranslateOptions,
  TranslateRequest,
  TranslateResult,
  TranslationItem,
} from './types.ts';

export function prepareTranslate(
  deps: ServiceDeps,
  input: TranslateInput,
  options: TranslateOptions = {},
): TranslateRequest {
  // Order of checks = order a client fixes them in: missing fields first, then their values.
  if (input.q === undefined || input.q === null) validateQ(input.q, deps.config, input.stringsField);
  const target = validateLanguage('target', input.target, true)!;
  const { strings, single, chars } = validateQ(input.q, deps.config, input.stringsField);
  const source = validateLanguage('source', input.source, false);
  const format = validateFormat(input.format);
  checkChoice(deps, options);
  return { strings, single, target, source, format, chars, options };
}

/** The plain-text planner for a way of cutting sentences (TranslateOptions.sentences). */
function textPlanner(deps: ServiceDeps, sentences: TranslateOptions['sentences']): (text: string) => AnyPlan | Promise<AnyPlan> {
  if (sentences === 'nonewlines') return (text) => deps.planners.text(text.replace(/\r\n|[\n\r]/g, ' '));
  if (sentences !== 'whole') return deps.planners.text;
  // One segment: the text without its edge whitespace, which comes back as it was.
  return (text) => {
    const lead = /^\s*/.exec(text)![0];
    const body = text.trim();
    const trail = text.slice(lead.length + body.length);
    return { segments: body ? [body] : [], assemble: (t) => (body ? lead + t[0]! + trail : text) };
  };
}

async function readGlossary(deps: ServiceDeps, req: TranslateRequest): Promise<Glossary | undefined> {
  const ref = req.options.glossary;
  if (!ref) return undefined;
  if (!deps.glossaries) throw invalidRequest('This server keeps no glossaries.');
  return deps.glossaries.get(ref.owner, ref.id);
}

async function readMemory(deps: ServiceDeps, req: TranslateRequest): Promise<Memory | undefined> {
  const ref = req.options.memory;
  if (!ref) return undefined;
  if (!deps.memories) throw invalidRequest('This server keeps no translation memories.');
  const m = await deps.memories.get(ref.owner, ref.id);
  if (req.source && req.source.code !== m.source) {
    throw invalidRequest(`Translation memory '${m.id}' has source language '${m.source}'; this request's source is '${req.source.code}'.`);
  }
  return m;
}

export function noModelsError(): ApiError {
  return new ApiError(
    503,
    'server_error',
    `No translation model is installed. Copy a model folder into DRAGOMAN_MODELS_DIR, or install one with ` +
      `\`dragoman models\` (e.g. \`dragoman models pull opus-mt-en-de\`, or without network \`dragoman models import FILE.tar\`), then restart the server.`,
  );
}

/** Fuzzy matches of a segment an LLM translator reads as examples (and that /v1 reports with `matches`): the best ones. */
export const MEMORY_EXAMPLES = 3;

/**
 * Whether a group's route reads a memory's matches as examples: one model (a pivot's hops would read examples in
 * another pair), an LLM translator whose dragoman.json words them.
 */
function takesExamples(deps: ServiceDeps, chosen: ChosenRoute): boolean {
  if (chosen.route.length !== 1) return false;
  return !!deps.engine.models().find((m) => m.name === chosen.route[0])?.prompt?.examples;
}

function hasModels(deps: ServiceDeps): boolean {
  return deps.engine.models().some((m) => m.status === 'ok');
}

interface Group {
  source: Language;
  indexes: number[];
  chosen?: ChosenRoute;
}

export async function runTranslate(deps: ServiceDeps, req: TranslateRequest, signal?: AbortSignal): Promise<TranslateResult> {
  const { strings, target } = req;
  const results: TranslationItem[] = strings.map((input) => ({ translatedText: input, input }));
  const slices = new Slices();

  const ignoreTags = req.options.ignoreTags;
  const plan = req.format === 'html'
    ? (html: string) => deps.planners.html(html, ignoreTags?.length ? { ignoreTags } : {})
    : textPlanner(deps, req.options.sentences);
  // The glossary is read before any work (an unknown one is a 404 however the request would go on).
  const glossary = await readGlossary(deps, req);
  const memory = await readMemory(deps, req);
  let memoryChars = 0;
  // Plans are made once; for html they also give the text to detect (markup would mislead the detector).
  const plans = new Map<number, Promise<AnyPlan>>();
  const planOf = (i: number): Promise<AnyPlan> => {
    let p = plans.get(i);
    if (!p) {
      plans.set(i, (p = Promise.resolve(req.plans?.[i] ?? plan(strings[i]!))));
      p.catch(() => {}); // awaited where it is used; a string never used must not be an unhandled rejection
    }
    return p;
  };

  // 1. The source of every string: given, or detected per string (a batch may mix languages).
  const groups = new Map<string, Group>();
  for (const [i, text] of strings.entries()) {
    let source = req.source;
    if (!source) {
      const d = deps.detector.detect(req.format === 'html' ? (await planOf(i)).segments.join(' ') : text);
      await slices.next();
      results[i]!.detectedSourceLanguage = d.language;
      results[i]!.detection = d;
      source = d.language === 'und' ? undefined : resolveLanguage(d.language);
      // Nothing detectable (empty, digits, symbols): nothing to translate, the text comes back as sent.
      if (!source) continue;
    }
    if (source.flores === target.flores) continue; // same language: unchanged
    let g = groups.get(source.flores);
    if (!g) groups.set(source.flores, (g = { source, indexes: [] }));
    g.indexes.push(i);
  }

  // 2. Every group must have a route before any work starts (a request fails whole, never half-done).
  if (groups.size > 0 && !hasModels(deps)) throw noModelsError();
  // The route as the request chose it (a kind of model, one model), and what its models take of the prompt additions.
  for (const g of groups.values()) {
    g.chosen = chooseRoute(deps, g.source, target, req.options);
    if (g.chosen) continue;
    const first = g.indexes[0]!;
    const detected = req.source ? '' : `q[${first}] was detected as '${g.source.code}' (${g.source.name}); `;
    const sentence = `no installed model translates ${g.source.name} ('${g.source.code}') into ${target.name} ` +
        `('${target.code}').${req.source ? '' : ' Pass source if the detection is wrong.'} ` +
        `See GET /v1/languages for the languages this server translates.`;
    throw invalidRequest(detected ? detected + sentence : sentence[0]!.toUpperCase() + sentence.slice(1));
  }

  // A glossary must hold the pair of a source that was given; a detected source without its pair goes without it.
  const matchers = new Map<string, TermMatcher | undefined>();
  for (const g of groups.values()) {
    const d = glossary?.dictionaries.find((x) => x.source === g.source.code && x.target === target.code);
    if (glossary && !d && req.source) throw pairMissing(glossary, g.source.code, target.code);
    matchers.set(g.source.flores, d && deps.glossaries!.matcherOf(d));
  }
  const keep = req.options.keepSpans ?? deps.keepSpans ?? false;
  const priority = req.options.priority
    ?? (deps.bulkCharacters !== undefined && req.chars > deps.bulkCharacters ? 'bulk' : 'interactive');

  // 3. One engine call per group with all its segments; groups run concurrently.
  // Each group's routes, gathered in the order of the groups (of q), not in the order their translations end.
  const routesOf = new Map<Group, string[][]>();
  await Promise.all(
    [...groups.values()].map(async (g) => {
      const groupPlans: AnyPlan[] = [];
      for (const i of g.indexes) {
        groupPlans.push(await planOf(i));
        await slices.next();
      }
      const segments = groupPlans.flatMap((p) => p.segments);
      if (segments.length === 0) {
        for (const [k, i] of g.indexes.entries()) results[i]!.translatedText = await groupPlans[k]!.assemble([]);
        return;
      }
      const alternatives = req.options.alternatives ?? 0;
      const matcher = matchers.get(g.source.flores);
      // The memory's exact segments are its stored targets, never decoded; the rest go to the engine.
      // Fuzzy matches are looked up when the request asks for them, or as examples for an LLM translator that takes them.
      const use = memory && memory.source === g.source.code ? req.options.memory! : undefined;
      const examples = !!use && takesExamples(deps, g.chosen!);
      const lookups = use
        ? await deps.memories!.lookup(memory!, target.code, segments, {
            threshold: use.threshold ?? 75, fuzzy: use.matches === true || examples, limit: MEMORY_EXAMPLES,
          })
        : undefined;
      const todo = lookups ? segments.flatMap((_s, k) => (lookups[k]!.exact ? [] : [k])) : segments.map((_s, k) => k);
      const todoSegments = todo.map((k) => segments[k]!);
      // Kept spans are found in the text of both formats; in HTML, translate="no" and ignored elements never reach the engine.
      const constraints = matcher || keep
        ? todoSegments.map((s) => segmentConstraints(s, matcher, keep, req.format === 'html'))
        : undefined;
      const verdicts: (SegmentVerdict | undefined)[] = [];
      const contexts = documentContexts(deps, g.chosen!, req.options.documentContext, segments);
      const machine = todoSegments.length
        ? await deps.engine.translate(todoSegments, g.source.flores, target.flores, {
            ...(alternatives > 0 ? { alternatives } : {}),
            ...(constraints?.some(Boolean) ? { constraints } : {}),
            ...(req.options.terms ? { terms: req.options.terms } : {}),
            ...(contexts ? { contexts: todo.map((k) => contexts[k]) } : {}),
            ...(examples && todo.some((k) => lookups![k]!.matches.length)
              ? { examples: todo.map((k) => lookups![k]!.matches.map((m) => ({ source: m.source, target: m.target }))) }
              : {}),
            ...(req.options.model ? { model: req.options.model } : {}),
            ...(Object.keys(g.chosen!.prompt).length ? { prompt: g.chosen!.prompt } : {}),
            ...(signal ? { signal } : {}),
            priority,
          })
        : undefined;
      const groupRoutes: string[][] = [];
      routesOf.set(g, groupRoutes);
      if (machine) groupRoutes.push(machine.route);
      // An LLM translator's answers are checked to be translations; one that is not goes to the pair's NMT model.
      if (machine && g.chosen!.languageModel && deps.outputCheck !== false) {
        const checked = await checkAnswers(deps, g.source, target, todoSegments, machine.translations, {
          ...(constraints?.some(Boolean) ? { constraints } : {}), ...(signal ? { signal } : {}), priority,
        });
        if (checked.route) groupRoutes.push(checked.route);
        for (const [j, k] of todo.entries()) verdicts[k] = checked.verdicts[j];
        for (const [j, v] of checked.verdicts.entries()) {
          if (v?.verdict !== 'replaced') continue;
          machine.translations[j] = checked.translations[j]!;
          if (machine.alternatives) machine.alternatives[j] = [];
        }
      }
      // An exact segment is its stored target as it is; in html its inline codes also say where the tags go.
      const stored = (k: number): string => {
        const hit = lookups?.[k]!.exact;
        return !hit ? '' : req.format === 'html' ? markedTarget(hit) : hit.target;
      };
      const out = { translations: segments.map((_s, k) => stored(k)), alternatives: [] as (string[] | undefined)[] };
      for (const [j, k] of todo.entries()) {
        out.translations[k] = machine!.translations[j]!;
        out.alternatives[k] = machine!.alternatives?.[j];
      }
      if (use?.update && todo.length) {
        await deps.memories!.learn(memory!, target.code, todo.map((k) => [segments[k]!, out.translations[k]!]));
      }
      let at = 0;
      for (const [k, i] of g.indexes.entries()) {
        const p = groupPlans[k]!;
        const n = p.segments.length;
        const best = out.translations.slice(at, at + n);
        results[i]!.translatedText = await p.assemble(best);
        const judged = verdicts.slice(at, at + n).filter((v) => v !== undefined);
        if (judged.length) {
          const check = results[i]!.check = { judged: judged.length, replaced: 0, failed: 0, reasons: [] as CheckFailure[] };
          for (const v of judged) {
            if (v.verdict === 'passed') continue;
            check[v.verdict]++;
            if (!check.reasons.includes(v.reason)) check.reasons.push(v.reason);
          }
        }
        if (lookups) {
          const mine = lookups.slice(at, at + n);
          const exact = mine.flatMap((l, s) => (l.exact ? [codePoints(p.segments[s]!)] : []));
          const chars = exact.reduce((a, b) => a + b, 0);
          memoryChars += chars;
          results[i]!.memory = {
            segments: n, exact: exact.length, chars,
            // Matches looked up only as examples are not reported unless asked for.
            matches: mine.flatMap((l, s) => (use!.matches === true || l.exact ? l.matches : []).map((m) => ({ sentence: s, segment: p.segments[s]!, source: m.source, target: m.target, similarity: m.similarity }))),
            origins: mine.map((l) => (!l.exact ? 'machine' : l.exact.reviewed ? 'reviewed' : 'learned')),
          };
        }
        await slices.next();
        if (alternatives > 0) {
          // Alternative j of a string: each segment's j-th alternative (its best one when it has fewer).
          const alts: string[] = [];
          for (let j = 0; j < alternatives; j++) {
            let any = false;
            const segs = best.map((b, s) => {
              const a = out.alternatives?.[at + s]?.[j];
              if (a !== undefined) any = true;
              return a ?? b;
            });
            if (any) alts.push(await p.assemble(segs));
          }
          results[i]!.alternatives = alts;
        }
        at += n;
      }
    }),
  );
  if (req.options.alternatives && req.options.alternatives > 0) {
    for (const r of results) r.alternatives ??= [];
  }
  if (memoryChars > 0 && req.options.memory!.countServed !== false) await deps.memories!.recordServed(req.options.memory!.owner, memoryChars, deps.now?.() ?? Date.now());
  const chosen = [...groups.values()].map((g) => g.chosen!);
  const checks = results.flatMap((r) => (r.check ? [r.check] : []));
  const routes = [...groups.values()].flatMap((g) => routesOf.get(g) ?? []);
  return {
    translations: results, routes, memoryChars,
    ...(checks.length ? {
      check: {
        judged: checks.reduce((n, c) => n + c.judged, 0), replaced: checks.reduce((n, c) => n + c.replaced, 0),
        failed: checks.reduce((n, c) => n + c.failed, 0),
      },
    } : {}),
    languageModel: routes.some((r) => chosen.some((c) => c.languageModel && c.route.join('>') === r.join('>'))),
    unused: [...new Set(chosen.flatMap((c) => c.unused))],
  };
}
