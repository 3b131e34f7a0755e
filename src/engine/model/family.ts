// What differs between model families, declared as data: how source ids are framed, how decoding starts, which
// logits rules apply, how the vocabulary names languages and where routing ranks them. The decoding loops
// (greedy.ts, beam.ts) never ask which family they run; docs/models-families.md tells the same in prose.
import { languageByNllb, resolveLanguage } from '../../languages/catalog.ts';
import type { Language } from '../../languages/types.ts';
import type { ModelFamily } from '../types.ts';

/** One family's rules. Each matches what transformers.js (and Python transformers) do with such a model. */
export interface FamilyRules {
  /**
   * What opens the source ids, before the pieces and `</s>`:
   * 'source': the source language's token (NLLB `eng_Latn`, M2M-100 `__en__`, mBART-50 `en_XX`; the tokenizer's
   * template with src_lang); 'target': a multi-target Marian model's `>>deu<<` for the wanted target (written in
   * front of the text, split off by MarianTokenizer); a one-pair Marian model has no language token at all.
   */
  opening: 'source' | 'target';
  /** The target language's token is forced as the first generated token (`forced_bos_token_id` from tgt_lang). */
  forcesTargetToken: boolean;
  /** Ids when config.json and generation_config.json leave them out. */
  defaultEosId: number;
  defaultPadId: number;
  /** Decoding starts at `</s>` (fairseq families) or at `<pad>` (Marian). */
  startsAt: 'eos' | 'pad';
  /** Vocabulary tokens naming languages (added special tokens), and the catalog language each names. */
  languageToken?: { pattern: RegExp; language: (token: string) => Language | undefined };
  /** Routing: models of a lower tier serve a pair first (see Router). */
  tier: 'opus-mt' | 'multilingual';
}

/** M2M-100 codes that are not the language's ISO 639-1/3 code in the catalog. */
const M2M100_CODES: Record<string, string> = { ns: 'nso', no: 'nb' };

export const FAMILY_RULES: Record<ModelFamily, FamilyRules> = {
  marian: { opening: 'target', forcesTargetToken: false, defaultEosId: 0, defaultPadId: 0, startsAt: 'pad', tier: 'opus-mt' },
  nllb: {
    opening: 'source', forcesTargetToken: true, defaultEosId: 2, defaultPadId: 1, startsAt: 'eos', tier: 'multilingual',
    languageToken: { pattern: /^[a-z]{3}_[A-Z][a-z]{3}$/, language: (t) => languageByNllb(t) },
  },
  m2m100: {
    opening: 'source', forcesTargetToken: true, defaultEosId: 2, defaultPadId: 1, startsAt: 'eos', tier: 'multilingual',
    // `__de__`, `__ast__` (the pattern M2M100Tokenizer itself uses)
    languageToken: { pattern: /^__[a-z]{2,3}__$/, language: (t) => { const c = t.slice(2, -2); return resolveLanguage(M2M100_CODES[c] ?? c); } },
  },
  mbart50: {
    opening: 'source', forcesTargetToken: true, defaultEosId: 2, defaultPadId: 1, startsAt: 'eos', tier: 'multilingual',
    // `de_DE`, `en_XX`, `zh_CN` (MBartTokenizer's pattern); the region only matters for Chinese
    languageToken: { pattern: /^[a-z]{2}_[A-Z]{2}$/, language: (t) => resolveLanguage(t === 'zh_CN' ? 'zh-Hans' : t.slice(0, 2)) },
  },
};

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
  /** NLLB, M2M-100, mBART-50: the target-language token is forced as the first generated token. */
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
  const spec = FAMILY_RULES[family];
  const eosId = num(pick('eos_token_id')) ?? spec.defaultEosId;
  const padId = num(pick('pad_token_id')) ?? spec.defaultPadId;
  const bad = pick('bad_words_ids');
  const bannedIds = Array.isArray(bad)
    ? bad.filter((w): w is number[] => Array.isArray(w) && w.length === 1).map((w) => Number(w[0]))
    : [];
  return {
    family,
    decoderStartId: num(pick('decoder_start_token_id')) ?? (spec.startsAt === 'eos' ? eosId : padId),
    eosId,
    padId,
    vocabSize: num(config.vocab_size) ?? 0,
    bannedIds,
    forcedEosId: num(pick('forced_eos_token_id')),
    forcesTargetToken: spec.forcesTargetToken,
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

/** The most tokens any row may generate: the model's max_length - 1, within its position table. */
export function outputCap(rules: GenerationRules): number {
  return Math.max(1, Math.min(rules.maxLength, rules.maxPositions) - 1);
}

export function maxNewTokens(rules: GenerationRules, sourceTokens: number): number {
  return Math.min(outputCap(rules), Math.max(MIN_TOKEN_LIMIT, 3 * sourceTokens + 10));
}
