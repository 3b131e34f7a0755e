// One hop's segments that carry constraints: each prepared (phrases.ts), sent to the batcher as rows of their own
// (the worker runs them through constrained-beam.ts), decoded and written back. Not cached: the same sentence with
// other terms is another translation, and a glossary's terms change when it is replaced.
import type { Batcher, Cancellation } from '../batching/batcher.ts';
import type { Priority } from '../types.ts';
import { TooManyTerms } from '../errors.ts';
import { maxSourceTokens, outputCap, type GenerationRules } from '../model/family.ts';
import type { GenerationRow } from '../search/types.ts';
import type { ModelTokenizer } from '../model/tokenizer.ts';
import type { SegmentConstraint } from '../types.ts';
import { joinerIds, prepareRow } from '../search/phrases.ts';
import { extraRoom } from '../search/constraints.ts';

export interface ConstrainedHop {
  model: string;
  rules: GenerationRules;
  tokenizer: ModelTokenizer;
  batcher: Batcher;
  /** Row `row`'s source ids, as the hop frames its segment (an LLM translator: its prompt). */
  encode(text: string, row: number): number[];
  /** The most new tokens row `row` of these source ids may take (the hop's rule). */
  newTokens(ids: readonly number[], row: number): number;
  forcedFirstId: number | undefined;
  beams: number;
  fixedNewTokens?: number;
  cancel?: Cancellation;
  priority?: Priority;
}

/** Translations of `texts`, each containing every constraint's target exactly once. */
export async function translateConstrained(hop: ConstrainedHop, texts: readonly string[], constraints: readonly SegmentConstraint[][]): Promise<string[]> {
  const joiners = joinerIds(hop.tokenizer);
  const prepared = texts.map((text, i) => prepareRow(hop.tokenizer, text, constraints[i]!));
  const limit = maxSourceTokens(hop.rules);
  const cap = outputCap(hop.rules);
  const rows: GenerationRow[] = prepared.map((p, row) => {
    // The source is cut to the position table (a longer sentence is rare: the service cuts text into sentences first).
    const full = hop.encode(p.source, row);
    const ids = full.length > limit ? [...full.slice(0, limit - 1), full[full.length - 1]!] : full;
    // The phrases' room comes on top of the usual limit, but no output may pass the model's own (its positions): a
    // row whose phrases alone do not fit is refused, before anything is decoded.
    const room = extraRoom(p.phrases);
    const forced = hop.forcedFirstId === undefined ? 0 : 1; // the target's language token comes first
    if (room + forced > cap) throw new TooManyTerms(p.phrases.length, room - 1, cap - 1 - forced);
    const max = Math.min(cap, (hop.fixedNewTokens ?? hop.newTokens(ids, row)) + room);
    const min = Math.min(hop.fixedNewTokens ?? 0, max);
    return { ids, maxNewTokens: max, minNewTokens: min, forcedFirstId: hop.forcedFirstId, constraints: { phrases: p.phrases, joiners } };
  });
  // The requested beams: the worker's first, usual search uses them, and the constrained one raises them to
  // MIN_CONSTRAINED_BEAMS itself (the batcher's token budget then undercounts those rows; they are few).
  const hypotheses = await hop.batcher.submit(hop.model, hop.beams, 1, rows, hop.cancel, hop.priority);
  return prepared.map((p, i) => {
    const best = hypotheses[i]![0];
    return best ? p.restore(hop.tokenizer.decode(best)) : '';
  });
}
