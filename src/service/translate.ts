// Translation: validate, detect each string's language when no source was given, group the strings by
// source language, and make ONE engine call per (source, target) group carrying every segment of every string
// of the group, so the engine can batch them. Results come back in the order of q with the input echoed.
import { ApiError, invalidRequest } from './errors.ts';
import { resolveLanguage } from '../languages/catalog.ts';
import type { Language } from '../languages/types.ts';
import { Slices } from './slices.ts';
import { validateFormat, validateLanguage, validateQ } from './validate.ts';
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
  if (input.q === undefined || input.q === null) validateQ(input.q, deps.config);
  const target = validateLanguage('target', input.target, true)!;
  const { strings, single, chars } = validateQ(input.q, deps.config);
  const source = validateLanguage('source', input.source, false);
  const format = validateFormat(input.format);
  return { strings, single, target, source, format, chars, options };
}

export function noModelsError(): ApiError {
  return new ApiError(
    503,
    'server_error',
    `No translation model is installed. Copy a model folder into DRAGOMAN_MODELS_DIR, or install one with ` +
      `\`dragoman models\` (e.g. \`dragoman models pull opus-mt-en-de\`), then restart the server.`,
  );
}

function hasModels(deps: ServiceDeps): boolean {
  return deps.engine.models().some((m) => m.status === 'ok');
}

interface Group {
  source: Language;
  indexes: number[];
}

export async function runTranslate(deps: ServiceDeps, req: TranslateRequest, signal?: AbortSignal): Promise<TranslateResult> {
  const { strings, target } = req;
  const results: TranslationItem[] = strings.map((input) => ({ translatedText: input, input }));
  const slices = new Slices();

  const plan = req.format === 'html' ? deps.planners.html : deps.planners.text;
  // Plans are made once; for html they also give the text to detect (markup would mislead the detector).
  const plans = new Map<number, Promise<AnyPlan>>();
  const planOf = (i: number): Promise<AnyPlan> => {
    let p = plans.get(i);
    if (!p) {
      plans.set(i, (p = Promise.resolve(plan(strings[i]!))));
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
  for (const g of groups.values()) {
    if (deps.engine.route(g.source.flores, target.flores)) continue;
    const first = g.indexes[0]!;
    const detected = req.source ? '' : `q[${first}] was detected as '${g.source.code}' (${g.source.name}); `;
    const sentence = `no installed model translates ${g.source.name} ('${g.source.code}') into ${target.name} ` +
        `('${target.code}').${req.source ? '' : ' Pass source if the detection is wrong.'} ` +
        `See GET /v1/languages for the languages this server translates.`;
    throw invalidRequest(detected ? detected + sentence : sentence[0]!.toUpperCase() + sentence.slice(1));
  }

  // 3. One engine call per group with all its segments; groups run concurrently.
  const routes: string[][] = [];
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
      const out = await deps.engine.translate(segments, g.source.flores, target.flores, {
        ...(alternatives > 0 ? { alternatives } : {}),
        ...(signal ? { signal } : {}),
      });
      routes.push(out.route);
      let at = 0;
      for (const [k, i] of g.indexes.entries()) {
        const p = groupPlans[k]!;
        const n = p.segments.length;
        const best = out.translations.slice(at, at + n);
        results[i]!.translatedText = await p.assemble(best);
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
  return { translations: results, routes };
}
