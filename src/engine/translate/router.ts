// Which models serve source -> target (FLORES codes), in this order (docs/models-families.md):
//   1. a one-pair OPUS-MT model (opus-mt-en-de): the specialist is the better translator;
//   2. a multi-target or multi-source OPUS-MT model (opus-mt-en-ROMANCE, opus-mt-mul-en);
//   3. a decoder-only LLM translator, for the pairs its dragoman.json declares;
//   4. a many-to-many model: NLLB-200, M2M-100, mBART-50;
//   5. a pivot through English, each hop chosen the same way.
// Deterministic: ties go to the alphabetically first model. A request may ask for a kind instead (ModelChoice):
// `quality` takes a direct LLM translator, `speed` a route of encoder-decoder models, each before the usual order.
import { FAMILY_RULES } from '../model/family.ts';
import type { ModelChoice, ModelFamily } from '../types.ts';

export const PIVOT = 'eng_Latn';

export interface Routable {
  name: string;
  family: ModelFamily;
  sources: ReadonlySet<string>;
  targets: ReadonlySet<string>;
  /** Only these `source>target` pairs (an LLM translator's declared pairs); absent: every source to every target. */
  pairs?: ReadonlySet<string>;
}

const TIER_RANK = { llm: 2, multilingual: 3 } as const;

export class Router {
  private readonly models: Routable[];

  constructor(models: Routable[]) {
    const rank = (m: Routable) => {
      const tier = FAMILY_RULES[m.family].tier;
      return tier === 'opus-mt' ? (m.sources.size === 1 && m.targets.size === 1 ? 0 : 1) : TIER_RANK[tier];
    };
    this.models = [...models].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  }

  direct(source: string, target: string, accept: (m: Routable) => boolean = () => true): string | undefined {
    return this.models.find((m) => accept(m) && serves(m, source, target))?.name;
  }

  route(source: string, target: string, choice?: ModelChoice): string[] | undefined {
    if (source === target) return [];
    if (choice && 'name' in choice) {
      const m = this.models.find((x) => x.name === choice.name);
      return m && serves(m, source, target) ? [m.name] : undefined;
    }
    if (choice?.kind === 'quality') {
      const llm = this.direct(source, target, isLanguageModel);
      if (llm) return [llm];
      if (choice.strict) return undefined;
    }
    if (choice?.kind === 'speed') {
      const nmt = this.routeAmong(source, target, (m) => !isLanguageModel(m));
      if (nmt || choice.strict) return nmt;
    }
    return this.routeAmong(source, target, () => true);
  }

  private routeAmong(source: string, target: string, accept: (m: Routable) => boolean): string[] | undefined {
    const one = this.direct(source, target, accept);
    if (one) return [one];
    if (source === PIVOT || target === PIVOT) return undefined;
    const first = this.direct(source, PIVOT, accept);
    const second = this.direct(PIVOT, target, accept);
    return first && second ? [first, second] : undefined;
  }

  sources(): string[] {
    return [...new Set(this.models.flatMap((m) => [...m.sources]))].sort();
  }

  targets(source?: string): string[] {
    const all = [...new Set(this.models.flatMap((m) => [...m.targets]))].sort();
    if (source === undefined) return all;
    return all.filter((t) => t !== source && this.route(source, t));
  }
}

function serves(m: Routable, source: string, target: string): boolean {
  return m.sources.has(source) && m.targets.has(target) && (!m.pairs || m.pairs.has(`${source}>${target}`));
}

function isLanguageModel(m: Routable): boolean {
  return FAMILY_RULES[m.family].tier === 'llm';
}
