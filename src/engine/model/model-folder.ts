// Reads one model folder (Hugging Face Xenova/Optimum ONNX layout): which family, which languages, which files at
// the chosen precision, and what is wrong with it when something is. File checks only (an .onnx file's top-level
// structure included); loading the graphs is the pool's.
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { LANGUAGES, resolveLanguage } from '../../languages/catalog.ts';
import { DECODER_ONLY_TYPES, FAMILY_RULES, decoderDims, generationRules } from './family.ts';
import { GENAI_CONFIG, isDecoderOnly, readDecoderOnlyFolder } from './decoder-only-folder.ts';
import type { TranslatorPrompt } from './translator-prompt.ts';
import { fileStamp } from './file-stamp.ts';
import { FolderProblem, fileSize, readJson } from './folder-files.ts';
import { onnxFileProblem } from './onnx-file-check.ts';
import { targetTokenMap, targetTokenPieces } from './target-tokens.ts';
import type { ModelRuntimeSpec } from './runtime-spec.ts';
import type { ModelFamily, ModelInfo, PrecisionSetting } from '../types.ts';

/** The optional declaration of a model's family and languages (README, "Models"). */
export const DECLARATION_FILE = 'dragoman.json';

export interface ModelFolder {
  info: ModelInfo;
  /** Present when the files are all there and readable (info.status 'ok' so far). */
  runtime?: ModelRuntimeSpec;
  /**
   * Multi-target Marian models (OPUS-MT `en-ROMANCE`, `en-mul`, `en-zh`, ...): FLORES code -> the `>>xx<<` vocabulary
   * token that must open the source to ask for that target language.
   */
  targetTokens?: Record<string, string>;
  /** NLLB, M2M-100, mBART-50: FLORES code -> the vocabulary's token for that language (`__de__`, `de_DE`, `deu_Latn`). */
  languageTokens?: Record<string, string>;
  /** A decoder-only translator's prompt (its dragoman.json). */
  prompt?: TranslatorPrompt;
}

/** Optional `dragoman.json` beside the model files. */
interface Declaration {
  family?: string;
  /** One code or a list (a multi-source model such as `opus-mt-ROMANCE-en` must list its sources). */
  source?: string | string[];
  target?: string | string[];
  /** Multi-target Marian: which `>>xx<<` token asks for which language, where the automatic choice is not wanted. */
  targetTokens?: Record<string, string>;
}

const FAMILIES = Object.keys(FAMILY_RULES) as ModelFamily[];

/** From dragoman.json, else config.json's model_type as the real repositories have it (NLLB is an `m2m_100`). */
function familyOf(name: string, declared: Declaration | undefined, config: Record<string, unknown>): ModelFamily | undefined {
  const d = declared?.family?.toLowerCase();
  if (d && (FAMILIES as string[]).includes(d)) return d as ModelFamily;
  if (d) throw new FolderProblem('corrupt', `dragoman.json: unknown family "${declared!.family}" (${FAMILIES.join(', ')})`);
  if (/nllb/i.test(name) || config.tokenizer_class === 'NllbTokenizer') return 'nllb';
  if (config.model_type === 'marian' || /opus-mt/i.test(name)) return 'marian';
  if (config.model_type === 'm2m_100') return 'm2m100';
  if (config.model_type === 'mbart') return 'mbart50';
  return undefined;
}

/**
 * The source languages a model card (README.md) lists, as OPUS-MT cards do: `* source languages: fr,fr_BE,es`
 * or `- source language(s): fra spa ita`. Codes outside the catalog are left out.
 */
export function cardSources(readme: string): string[] {
  const m = /source languages?(?:\(s\))?\s*[:|]\s*([^\n|]+)/i.exec(readme);
  if (!m) return [];
  const codes = m[1]!.split(/[\s,]+/).map((c) => c.trim()).filter(Boolean);
  return [...new Set(codes.map((c) => resolveLanguage(c)?.flores).filter((f): f is string => !!f))];
}

/** Language groups of OPUS-MT names (`mul`, `ROMANCE`, `gem`, `gmw`, ...): not one catalog language. */
function isGroup(code: string): boolean {
  return !resolveLanguage(code);
}

/**
 * `opus-mt-en-de`, `Xenova--opus-mt-en-de`, `tiny-marian-en-de`, `opus-mt-en-ROMANCE`: the last two dash-separated
 * parts (a part may be a language group, which only the model's target tokens or dragoman.json can resolve).
 */
export function languagesFromName(name: string): [string, string] | undefined {
  const m = /(?:^|[-_.])([A-Za-z]{2,}(?:_[A-Za-z]{4})?)-([A-Za-z]{2,}(?:_[A-Za-z]{4})?)$/.exec(name);
  return m ? [m[1]!, m[2]!] : undefined;
}

function list(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)];
}

function flores(code: string, what: string, fromName: boolean): string {
  const lang = resolveLanguage(code);
  if (lang) return lang.flores;
  if (fromName) {
    throw new FolderProblem('incomplete', `the folder name's ${what} "${code}" is no language of the catalog (a language group?): `
      + `list its languages in dragoman.json, e.g. {"family":"marian","${what}":["fr","es"]}`);
  }
  throw new FolderProblem('corrupt', `${what} language "${code}" is not in the language catalog`);
}

/**
 * A Marian model's languages: sources from dragoman.json or the folder name; targets from the vocabulary's `>>xx<<`
 * tokens when it has them (narrowed or re-mapped by dragoman.json), else from dragoman.json or the folder name.
 */
function marianLanguages(path: string, name: string, declared: Declaration | undefined, tokenizerJson: Record<string, unknown>, readme: string) {
  const named = languagesFromName(name);
  const sources = list(declared?.source);
  const targets = list(declared?.target);
  const pieces = targetTokenPieces(tokenizerJson);
  if (!sources.length && !named) throw new FolderProblem('incomplete', `${path}: no source in dragoman.json and the folder name does not end in <source>-<target>`);
  // A multi-source model (`mul-en`, `ROMANCE-en`) reads the sources its dragoman.json or model card lists; with no
  // list at all, any catalog language (it was trained on many: routing ranks it below a one-pair model).
  const group = !sources.length && isGroup(named![0]);
  const fromCard = group ? cardSources(readme) : [];
  const sourceCodes = sources.length ? [...new Set(sources.map((c) => flores(c, 'source', false)))]
    : fromCard.length ? fromCard
      : group ? LANGUAGES.map((l) => l.flores)
        : [flores(named![0], 'source', true)];
  if (!pieces.length && !declared?.targetTokens) {
    if (!targets.length && !named) throw new FolderProblem('incomplete', `${path}: no target in dragoman.json and the folder name does not end in <source>-<target>`);
    if (targets.length > 1) throw new FolderProblem('corrupt', `dragoman.json lists ${targets.length} targets but tokenizer.json has no >>xx<< target tokens to choose between them`);
    return { sources: sourceCodes, targets: [targets.length ? flores(targets[0]!, 'target', false) : flores(named![1], 'target', true)], targetTokens: undefined };
  }
  // Multi-target: the vocabulary's >>xx<< tokens say what it can write; dragoman.json may narrow or re-map.
  const map = targetTokenMap(pieces);
  for (const [code, token] of Object.entries(declared?.targetTokens ?? {})) {
    if (!pieces.includes(token)) throw new FolderProblem('corrupt', `dragoman.json: targetTokens maps "${code}" to "${token}", which tokenizer.json does not have`);
    map.set(flores(code, 'target', false), token);
  }
  const wanted = targets.length ? targets.map((c) => flores(c, 'target', false)) : [...map.keys()];
  const missing = wanted.filter((f) => !map.has(f));
  if (missing.length) throw new FolderProblem('corrupt', `no >>xx<< token of tokenizer.json asks for ${missing.join(', ')} (map one in dragoman.json "targetTokens")`);
  if (!wanted.length) throw new FolderProblem('corrupt', `${join(path, 'tokenizer.json')}: none of its >>xx<< target tokens names a catalog language`);
  const targetCodes = [...new Set(wanted)].sort();
  return { sources: sourceCodes, targets: targetCodes, targetTokens: Object.fromEntries(targetCodes.map((f) => [f, map.get(f)!])) };
}

/**
 * The added special tokens naming languages in the family's own way (`eng_Latn`, `__en__`, `en_XX`): FLORES code
 * -> token, the first token naming a language winning (real vocabularies have one each).
 */
function familyLanguageTokens(family: ModelFamily, tokenizerJson: Record<string, unknown>): Record<string, string> {
  const rule = FAMILY_RULES[family].languageToken;
  const added = Array.isArray(tokenizerJson.added_tokens) ? (tokenizerJson.added_tokens as { content?: unknown }[]) : [];
  const out: Record<string, string> = {};
  for (const token of added.map((t) => String(t.content))) {
    if (!rule?.pattern.test(token)) continue;
    const flores = rule.language(token)?.flores;
    if (flores && !out[flores]) out[flores] = token;
  }
  return out;
}

export async function readModelFolder(path: string, precision: PrecisionSetting): Promise<ModelFolder> {
  const name = basename(path);
  const info: ModelInfo = { name, path, family: undefined, sources: [], targets: [], precision: undefined, sizeBytes: 0, status: 'ok' };
  try {
    const declaredJson = await readJson(join(path, DECLARATION_FILE), false);
    const declared = declaredJson as Declaration | undefined;
    // onnxruntime-genai's layout may come without config.json
    const genai = await readJson(join(path, GENAI_CONFIG), false);
    const config = (await readJson(join(path, 'config.json'), !genai))!;
    if (isDecoderOnly(config, genai)) {
      const { runtime, prompt } = await readDecoderOnlyFolder(path, info, precision, declaredJson, config, genai);
      return { info, runtime, prompt };
    }
    const generation = (await readJson(join(path, 'generation_config.json'), false)) ?? {};
    const family = familyOf(name, declared, config);
    info.family = family;
    if (!family) throw new FolderProblem('corrupt', `${path}: cannot tell the model family: config.json's model_type is ${JSON.stringify(config.model_type ?? null)} `
      + `(marian, m2m_100, mbart and the decoder-only ${Object.keys(DECODER_ONLY_TYPES).join(', ')} are known; or add dragoman.json {"family":"${FAMILIES.join('"|"')}"})`);

    const sizes: Record<string, number | undefined> = {};
    const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'generation_config.json',
      'onnx/encoder_model.onnx', 'onnx/decoder_model_merged.onnx',
      'onnx/encoder_model_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx'];
    for (const f of files) sizes[f] = await fileSize(join(path, f));
    const quantized = sizes['onnx/encoder_model_quantized.onnx'] !== undefined && sizes['onnx/decoder_model_merged_quantized.onnx'] !== undefined;
    const suffix = precision !== 'fp32' && quantized ? '_quantized' : ''; // int4 and auto: the smallest it has
    info.precision = suffix ? 'int8' : 'fp32';
    const used = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'generation_config.json',
      `onnx/encoder_model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`];
    // Every missing file at once (a download cut short lacks several), and the int8 half when it is partial too.
    const needed = ['tokenizer.json', `onnx/encoder_model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`];
    const missing = needed.filter((f) => sizes[f] === undefined);
    if (missing.length) {
      const int8Part = ['onnx/encoder_model_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx'];
      const partial = !suffix && precision !== 'fp32' && int8Part.some((f) => sizes[f] !== undefined)
        ? `; for int8, ${int8Part.filter((f) => sizes[f] === undefined).map((f) => join(path, f)).join(', ')} is missing` : '';
      throw new FolderProblem('incomplete', missing.map((f) => `${join(path, f)} is missing`).join('; ') + partial);
    }
    for (const f of needed) if (sizes[f] === 0) throw new FolderProblem('corrupt', `${join(path, f)} is empty`);
    for (const f of [`onnx/encoder_model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`]) {
      const problem = await onnxFileProblem(join(path, f));
      if (problem) throw new FolderProblem('corrupt', problem);
    }
    info.sizeBytes = used.reduce((sum, f) => sum + (sizes[f] ?? 0), 0);
    const tokenizerJson = (await readJson(join(path, 'tokenizer.json'), true))!;

    let targetTokens: Record<string, string> | undefined;
    let languageTokens: Record<string, string> | undefined;
    if (family === 'marian') {
      const readme = await readFile(join(path, 'README.md'), 'utf8').catch(() => '');
      ({ sources: info.sources, targets: info.targets, targetTokens } = marianLanguages(path, name, declared, tokenizerJson, readme));
    } else {
      languageTokens = familyLanguageTokens(family, tokenizerJson);
      const langs = Object.keys(languageTokens);
      if (!langs.length) {
        throw new FolderProblem('corrupt', `${join(path, 'tokenizer.json')} declares no ${family} language tokens `
          + `(added tokens like ${family === 'nllb' ? 'eng_Latn' : family === 'm2m100' ? '__en__' : 'en_XX'})`);
      }
      // dragoman.json may narrow what a many-to-many model offers
      const narrow = (codes: string[]) => (codes.length ? langs.filter((f) => codes.some((c) => resolveLanguage(c)?.flores === f)) : langs);
      info.sources = narrow(list(declared?.source));
      info.targets = narrow(list(declared?.target));
    }
    const rules = generationRules(family, config, generation);
    const dims = decoderDims(config);
    if (!dims.layers || !dims.heads) throw new FolderProblem('corrupt', `${join(path, 'config.json')} lacks decoder_layers / decoder_attention_heads / d_model`);
    const encoderPath = join(path, `onnx/encoder_model${suffix}.onnx`);
    const decoderPath = join(path, `onnx/decoder_model_merged${suffix}.onnx`);
    return {
      info,
      runtime: { kind: 'encoder-decoder', name, encoderPath, decoderPath, rules, dims, stamps: { encoder: fileStamp(encoderPath), decoder: fileStamp(decoderPath) } },
      ...(targetTokens ? { targetTokens } : {}),
      ...(languageTokens ? { languageTokens } : {}),
    };
  } catch (err) {
    if (!(err instanceof FolderProblem)) throw err;
    info.status = err.status;
    info.problem = err.message;
    return { info };
  }
}
