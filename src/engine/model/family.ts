// What differs between model families, declared as data: encoder-decoder or decoder-only, how source ids are framed,
// how decoding starts, which logits rules apply, how the vocabulary names languages and where routing ranks them.
// The decoding loops (greedy.ts, beam.ts) never ask which family they run; docs/models-families.md tells the same in
// prose.
import { languageByNllb, resolveLanguage } from '../../languages/catalog.ts';
import type { Language } from '../../languages/types.ts';
import type { ModelFamily } from '../types.ts';

/** One family's rules. Each matches what transformers.js (and Python transformers) do with such a model. */
export interface FamilyRules {
  /**
   * 'encoder-decoder': the source is encoded once and the decoder reads it (runtime/seq2seq.ts); 'decoder-only': an
   * LLM translator reads the source inside its prompt (dragoman.json's template in the tokenizer's chat template) and
   * continues it (runtime/causal-lm.ts).
   */
  architecture: 'encoder-decoder' | 'decoder-only';
  /**
   * What opens the source ids, before the pieces and `</s>`:
   * 'source': the source language's token (NLLB `eng_Latn`, M2M-100 `__en__`, mBART-50 `en_XX`; the tokenizer's
   * template with src_lang); 'target': a multi-target Marian model's `>>deu<<` for the wanted target (written in
   * front of the text, split off by MarianTokenizer); a one-pair Marian model has no language token at all.
   * 'none': a decoder-only model names its languages in its prompt.
   */
  opening: 'source' | 'target' | 'none';
  /** The target language's token is forced as the first generated token (`forced_bos_token_id` from tgt_lang). */
  forcesTargetToken: boolean;
  /** Ids when config.json and generation_config.json leave them out. */
  defaultEosId: number;
  defaultPadId: number;
  /** Decoding starts at `</s>` (fairseq families) or at `<pad>` (Marian). */
  startsAt: 'eos' | 'pad';
  /** Vocabulary tokens naming languages (added special tokens), and the catalog language each names. */
  languageToken?: { pattern: RegExp; language: (token: string) => Language | undefined };
  /**
   * The vocabulary covers many scripts (NLLB-200's 256,206 pieces, M2M-100's 128,112): with DRAGOMAN_VOCABULARY=target
   * the output layer runs over the rows a batch may write (output-vocabulary.ts), not over every piece.
   */
  manyScripts?: boolean;
  /** Routing: models of a lower tier serve a pair first (see Router). */
  tier: 'opus-mt' | 'llm' | 'multilingual';
}

/** Every decoder-only translator follows the same rules: its prompt, not its vocabulary, names the languages. */
const DECODER_ONLY: FamilyRules = {
  architecture: 'decoder-only', opening: 'none', forcesTargetToken: false, defaultEosId: 2, defaultPadId: 0, startsAt: 'pad', tier: 'llm',
};

/** config.json's (or genai_config.json's) model_type of a decoder-only translator, and its family. */
export const DECODER_ONLY_TYPES: Record<string, ModelFamily> = {
  llama: 'llama', qwen2: 'qwen2', qwen3: 'qwen3', gemma2: 'gemma2', gemma3_text: 'gemma3', gemma3: 'gemma3',
  hunyuan_v1_dense: 'hunyuan', mistral: 'mistral', phi3: 'phi3',
};

/** M2M-100 codes that are not the language's ISO 639-1/3 code in the catalog. */
const M2M100_CODES: Record<string, string> = { ns: 'nso', no: 'nb' };

export const FAMILY_RULES: Record<ModelFamily, FamilyRules> = {
  marian: { architecture: 'encoder-decoder', opening: 'target', forcesTargetToken: false, defaultEosId: 0, defaultPadId: 0, startsAt: 'pad', tier: 'opus-mt' },
  nllb: {
    architecture: 'encoder-decoder', opening: 'source', forcesTargetToken: true, defaultEosId: 2, defaultPadId: 1, startsAt: 'eos', tier: 'multilingual', manyScripts: true,
    languageToken: { pattern: /^[a-z]{3}_[A-Z][a-z]{3}$/, language: (t) => languageByNllb(t) },
  },
  m2m100: {
    architecture: 'encoder-decoder', opening: 'source', forcesTargetToken: true, defaultEosId: 2, defaultPadId: 1, startsAt: 'eos', tier: 'multilingual', manyScripts: true,
    // `__de__`, `__ast__` (the pattern M2M100Tokenizer itself uses)
    languageToken: { pattern: /^__[a-z]{2,3}__$/, language: (t) => { const c = t.slice(2, -2); return resolveLanguage(M2M100_CODES[c] ?? c); } },
  },
  mbart50: {
    architecture: 'encoder-decoder', opening: 'source', forcesTargetToken: true, defaultEosId: 2, defaultPadId: 1, startsAt: 'eos', tier: 'multilingual',
    // `de_DE`, `en_XX`, `zh_CN` (MBartTokenizer's pattern); the region only matters for Chinese
    languageToken: { pattern: /^[a-z]{2}_[A-Z]{2}$/, language: (t) => resolveLanguage(t === 'zh_CN' ? 'zh-Hans' : t.slice(0, 2)) },
  },
  llama: DECODER_ONLY, qwen2: DECODER_ONLY, qwen3: DECODER_ONLY, gemma2: DECODER_ONLY, gemma3: DECODER_ONLY,
  hunyuan: DECODER_ONLY, mistral: DECODER_ONLY, phi3: DECODER_ONLY,
};

/** Generation settings read from a model's config.json + generation_config.json (plain data, sent to workers). */
export interface GenerationRules {
  family: ModelFamily;
  decoderStartId: number;
  eosId: number;
  /** Every token that ends an output: EOS, and a chat model's end-of-turn (`eos_token_id` may be a list). eosId first. */
  stopIds: number[];
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
  const eosList = pick('eos_token_id');
  const stops = (Array.isArray(eosList) ? eosList : [eosList]).map(num).filter((n): n is number => n !== undefined);
  const eosId = stops[0] ?? spec.defaultEosId;
  const padId = num(pick('pad_token_id')) ?? spec.defaultPadId;
  const bad = pick('bad_words_ids');
  const bannedIds = Array.isArray(bad)
    ? bad.filter((w): w is number[] => Array.isArray(w) && w.length === 1).map((w) => Number(w[0]))
    : [];
  return {
    family,
    decoderStartId: num(pick('decoder_start_token_id')) ?? (spec.startsAt === 'eos' ? eosId : padId),
    eosId,
    stopIds: stops.length ? [...new Set(stops)] : [eosId],
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
  if (FAMILY_RULES[DECODER_ONLY_TYPES[String(config.model_type)] ?? 'marian'].architecture === 'decoder-only') {
    // The KV cache's heads: grouped-query attention keeps fewer key/value heads than query heads.
    const queryHeads = num(config.num_attention_heads) ?? 0;
    const hidden = num(config.hidden_size) ?? 0;
    return {
      layers: num(config.num_hidden_layers) ?? 0,
      heads: num(config.num_key_value_heads) ?? queryHeads,
      headDim: num(config.head_dim) ?? (queryHeads ? hidden / queryHeads : 0),
    };
  }
  const heads = num(config.decoder_attention_heads) ?? 0;
  const dModel = num(config.d_model) ?? 0;
  return { layers: num(config.decoder_layers) ?? 0, heads, headDim: heads ? dModel / heads : 0 };
}

/** Longest source (in tokens, specials included) sent to the model in one piece. */
export function maxSourceTokens(rules: GenerationRules): number {
  // A decoder-only model's prompt and answer share its context: the prompt may take half of it.
  const positions = FAMILY_RULES[rules.family].architecture === 'decoder-only' ? Math.floor(rules.maxPositions / 2) : rules.maxPositions;
  return Math.max(8, Math.min(positions, 512));
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
