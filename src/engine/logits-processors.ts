// Generation rules as small classes applied in a list (transformers.js style), so a family's rules are data.
// Each works on one row's scores (logits for greedy, log-probabilities for beam search) in place.
import type { GenerationRules } from './family.ts';

export interface RowContext {
  /** Tokens generated so far for this row (0 when choosing the first generated token). */
  step: number;
  maxNewTokens: number;
  minNewTokens: number;
  forcedFirstId: number | undefined;
}

export interface LogitsProcessor {
  apply(scores: Float32Array, row: RowContext): void;
}

function forceOnly(scores: Float32Array, id: number): void {
  scores.fill(-Infinity);
  scores[id] = 0;
}

/** NLLB: the target-language token is the first generated token. */
export class ForcedFirstToken implements LogitsProcessor {
  apply(scores: Float32Array, row: RowContext): void {
    if (row.step === 0 && row.forcedFirstId !== undefined) forceOnly(scores, row.forcedFirstId);
  }
}

/** `forced_eos_token_id`: the last allowed token is EOS. */
export class ForcedEosAtLimit implements LogitsProcessor {
  constructor(private readonly eosId: number) {}
  apply(scores: Float32Array, row: RowContext): void {
    if (row.step === row.maxNewTokens - 1) forceOnly(scores, this.eosId);
  }
}

/** `bad_words_ids` of single tokens (Marian never generates `<pad>`). */
export class BanTokens implements LogitsProcessor {
  constructor(private readonly ids: readonly number[]) {}
  apply(scores: Float32Array): void {
    for (const id of this.ids) scores[id] = -Infinity;
  }
}

/** EOS is not allowed before `minNewTokens` (used by the benchmark to generate a fixed number of tokens). */
export class MinNewTokens implements LogitsProcessor {
  constructor(private readonly eosId: number) {}
  apply(scores: Float32Array, row: RowContext): void {
    if (row.step < row.minNewTokens) scores[this.eosId] = -Infinity;
  }
}

/** The processor list of a model, in Hugging Face's order. */
export function processorsFor(rules: GenerationRules): LogitsProcessor[] {
  const list: LogitsProcessor[] = [];
  if (rules.bannedIds.length) list.push(new BanTokens(rules.bannedIds));
  list.push(new MinNewTokens(rules.eosId));
  if (rules.forcesTargetToken) list.push(new ForcedFirstToken());
  if (rules.forcedEosId !== undefined) list.push(new ForcedEosAtLimit(rules.forcedEosId));
  return list;
}
