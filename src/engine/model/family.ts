// What differs between model families, declared as data: how source ids are framed, how decoding starts, and which
// logits rules apply. The decoding loops (greedy.ts, beam.ts) never ask which family they run.
import type { ModelFamily } from '../types.ts';

/** Generation settings read from a model's config.json + generation_config.json (plain data, sent to workers). */
export interface GenerationRules {
  family: ModelFamily;
  decoderStartId: number;
  eosId: number;
  padId: number;
  vocabSize: number;
  /** Token ids whose logit is always -inf (`bad_words_ids` of length 1: Marian bans `<pad>`). */
  bannedIds: number[];
  /** `forced_eos_token_id`: EOS is forced at the last allowed step. */
  forcedEosId: number | undefined;
  /** NLLB: the target-language token is forced as the first generated token. */
  forcesTargetToken: boolean;
  defaultBeams: number;
  lengthPenalty: number;
  earlyStopping: boolean;
  /** `max_length` of the generation config (decoder start included, as in Hugging Face). */
  maxLength: number;
  /** Position-embedding table size: no source or output may be longer (longer sources are split first). */
  maxPositions: number;
}

/** Dimensions of the ONNX decoder, needed to build empty past tensors. */
export interface DecoderDims {
  layers: number;
  heads: number;
  headDim: number;
}

type Json = Record<string, unknown>;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function generationRules(family: ModelFamily, config: Json, generation: Json): GenerationRules {
  const pick = (key: string): unknown => (generation[key] !== undefined ? generation[key] : config[key]);
  const eosId = num(pick('eos_token_id')) ?? (family === 'nllb' ? 2 : 0);
  const padId = num(pick('pad_token_id')) ?? (family === 'nllb' ? 1 : 0);
  const bad = pick('bad_words_ids');
  const bannedIds = Array.isArray(bad)
    ? bad.filter((w): w is number[] => Array.isArray(w) && w.length === 1).map((w) => Number(w[0]))
    : [];
  return {
    family,
    decoderStartId: num(pick('decoder_start_token_id')) ?? (family === 'nllb' ? eosId : padId),
    eosId,
    padId,
    vocabSize: num(config.vocab_size) ?? 0,
    bannedIds,
    forcedEosId: num(pick('forced_eos_token_id')),
    forcesTargetToken: family === 'nllb',
    defaultBeams: num(pick('num_beams')) ?? 1,
    lengthPenalty: num(pick('length_penalty')) ?? 1,
    earlyStopping: pick('early_stopping') === true,
    maxLength: num(pick('max_length')) ?? 512,
    maxPositions: num(config.max_position_embeddings) ?? 512,
  };
}

export function decoderDims(config: Json): DecoderDims {
  const heads = num(config.decoder_attention_heads) ?? 0;
  const dModel = num(config.d_model) ?? 0;
  return { layers: num(config.decoder_layers) ?? 0, heads, headDim: heads ? dModel / heads : 0 };
}

/** Longest source (in tokens, specials included) sent to the model in one piece. */
export function maxSourceTokens(rules: GenerationRules): number {
  return Math.max(8, Math.min(rules.maxPositions, 512));
}

/**
 * How many tokens a row may generate: max(128, 3 x source tokens + 10), never above the model's max_length - 1
 * (nor its position table).
 * 128 is the references' max_new_tokens (HF semantics: EOS forced at the limit when the model declares
 * forced_eos_token_id), so a runaway output stops where the original model's would; the input-relative term only
 * lets long sentences go further. No request can run past max(128, 3 x input + 10) tokens.
 */
export const MIN_TOKEN_LIMIT = 128;

export function maxNewTokens(rules: GenerationRules, sourceTokens: number): number {
  const cap = Math.min(rules.maxLength, rules.maxPositions) - 1;
  return Math.max(1, Math.min(cap, Math.max(MIN_TOKEN_LIMIT, 3 * sourceTokens + 10)));
}
