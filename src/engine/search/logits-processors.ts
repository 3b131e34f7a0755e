// Generation rules as small classes applied in a list (transformers.js style), so a family's rules are data. Each
// says what it does to a row at a step (force a token, ban some); applyRules carries that out on a row's scores
// (log-probabilities for beam search, logits for greedy search without top-k candidates), chooseFromCandidates picks
// greedy search's token from the decoder's k best (top-candidates.ts) with the same result.
import type { GenerationRules } from '../model/family.ts';
import type { GenerationRow } from './types.ts';

export interface RowContext {
  /** Tokens generated so far for this row (0 when choosing the first generated token). */
  step: number;
  maxNewTokens: number;
  minNewTokens: number;
  forcedFirstId: number | undefined;
}

/** A row's context at `step` (tokens generated so far), as greedy and beam search give it to the rules. */
export function rowContext(row: GenerationRow, step: number): RowContext {
  return { step, maxNewTokens: row.maxNewTokens, minNewTokens: row.minNewTokens, forcedFirstId: row.forcedFirstId };
}

/** What one rule does to a row at one step: nothing, force one token, or ban some. */
export type RuleEffect = undefined | { force: number } | { ban: readonly number[] };

export interface LogitsProcessor {
  /** Its effect on this row at this step. */
  effect(row: RowContext): RuleEffect;
  /** The most tokens it bans at any one step (greedy search's top-k candidates must outnumber all bans). */
  readonly maxBanned: number;
}

/** NLLB: the target-language token is the first generated token. */
export class ForcedFirstToken implements LogitsProcessor {
  readonly maxBanned = 0;
  effect(row: RowContext): RuleEffect {
    return row.step === 0 && row.forcedFirstId !== undefined ? { force: row.forcedFirstId } : undefined;
  }
}

/** `forced_eos_token_id`: the last allowed token is EOS. */
export class ForcedEosAtLimit implements LogitsProcessor {
  readonly maxBanned = 0;
  constructor(private readonly eosId: number) {}
  effect(row: RowContext): RuleEffect {
    return row.step === row.maxNewTokens - 1 ? { force: this.eosId } : undefined;
  }
}

/** `bad_words_ids` of single tokens (Marian never generates `<pad>`). */
export class BanTokens implements LogitsProcessor {
  readonly maxBanned: number;
  constructor(private readonly ids: readonly number[]) {
    this.maxBanned = ids.length;
  }
  effect(): RuleEffect {
    return { ban: this.ids };
  }
}

/** No token ending the output is allowed before `minNewTokens` (used by the benchmark to generate a fixed number of tokens). */
export class MinNewTokens implements LogitsProcessor {
  readonly maxBanned: number;
  constructor(private readonly stopIds: readonly number[]) {
    this.maxBanned = stopIds.length;
  }
  effect(row: RowContext): RuleEffect {
    return row.step < row.minNewTokens ? { ban: this.stopIds } : undefined;
  }
}

/** The processor list of a model, in Hugging Face's order. */
export function processorsFor(rules: GenerationRules): LogitsProcessor[] {
  const list: LogitsProcessor[] = [];
  if (rules.bannedIds.length) list.push(new BanTokens(rules.bannedIds));
  list.push(new MinNewTokens(rules.stopIds));
  if (rules.forcesTargetToken) list.push(new ForcedFirstToken());
  if (rules.forcedEosId !== undefined) list.push(new ForcedEosAtLimit(rules.forcedEosId));
  return list;
}

/** Applies the rules to one row's scores, in place: a force leaves only that token (score 0), a ban -Infinity. */
export function applyRules(scores: Float32Array, processors: readonly LogitsProcessor[], row: RowContext): void {
  const { forced, banned } = rulesAt(processors, row);
  if (forced !== undefined) {
    scores.fill(-Infinity);
    scores[forced] = 0;
  }
  for (const id of banned) scores[id] = -Infinity;
}

/**
 * The rules of a row at a step folded in order: the token left forced (if any: a force leaves only that token, so it
 * undoes earlier bans and forces) and the tokens banned after it. applyRules and chooseFromCandidates both read this.
 */
export function rulesAt(processors: readonly LogitsProcessor[], row: RowContext): { forced: number | undefined; banned: Set<number> } {
  let forced: number | undefined;
  const banned = new Set<number>();
  for (const p of processors) {
    const e = p.effect(row);
    if (!e) continue;
    if ('force' in e) {
      forced = e.force;
      banned.clear();
    } else for (const id of e.ban) banned.add(id);
  }
  return { forced, banned };
}

/** How many best tokens greedy search needs from the decoder so that one of them survives every ban. */
export function candidatesNeeded(processors: readonly LogitsProcessor[]): number {
  return processors.reduce((n, p) => n + p.maxBanned, 0) + 1;
}

/**
 * Greedy search's choice from a row's best tokens (best first, ties to the lower id): exactly the arg-max of the
 * logits after applyRules, as long as the candidates outnumber the bans (candidatesNeeded) — the forced token, or the
 * best candidate no rule bans. A force followed by a ban of that token leaves every score at -Infinity, where the
 * arg-max is 0.
 */
export function chooseFromCandidates(candidates: ArrayLike<bigint>, processors: readonly LogitsProcessor[], row: RowContext): number {
  const { forced, banned } = rulesAt(processors, row);
  if (forced !== undefined) return banned.has(forced) ? 0 : forced;
  for (let i = 0; i < candidates.length; i++) {
    const id = Number(candidates[i]);
    if (!banned.has(id)) return id;
  }
  throw new Error(`greedy search: all ${candidates.length} candidates banned (${banned.size} bans)`);
}
