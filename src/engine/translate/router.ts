// Which models serve source -> target (FLORES codes), in this order (docs/models-families.md):
//   1. a one-pair OPUS-MT model (opus-mt-en-de): the specialist is the better translator;
//   2. a multi-target or multi-source OPUS-MT model (opus-mt-en-ROMANCE, opus-mt-mul-en);
//   3. a decoder-only LLM translator, for the pairs its dragoman.json declares;
//   4. a many-to-many model: NLLB-200, M2M-100, mBART-50;
//   5. a pivot through English, each hop chosen the same way.
// Deterministic: ties go to the alphabetically first model.
import { FAMILY_RULES } from '../model/family.ts';
import type { ModelFamily } from '../types.ts';

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

  direct(source: string, target: string): string | undefined {
    return this.models.find((m) => m.sources.has(source) && m.targets.has(target) && (!m.pairs || m.pairs.has(`${source}>${target}`)))?.name;
  }

  route(source: string, target: string): string[] | undefined {
    if (source === target) return [];
    const one = this.direct(source, target);
    if (one) return [one];
    if (source === PIVOT || target === PIVOT) return undefined;
    const first = this.direct(source, PIVOT);
    const second = this.direct(PIVOT, target);
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
