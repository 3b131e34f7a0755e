// Reads one model folder (Hugging Face Xenova/Optimum ONNX layout): which family, which languages, which files at
// the chosen precision, and what is wrong with it when something is. File checks only (an .onnx file's top-level
// structure included); loading the graphs is the pool's.
import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { languageByNllb, resolveLanguage } from '../../languages/catalog.ts';
import { decoderDims, generationRules } from './family.ts';
import { fileStamp } from './file-stamp.ts';
import { onnxFileProblem } from './onnx-file-check.ts';
import { targetTokenMap, targetTokenPieces } from './target-tokens.ts';
import type { ModelRuntimeSpec } from '../pool/protocol.ts';
import type { ModelFamily, ModelInfo } from '../types.ts';

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

const NLLB_CODE = /^[a-z]{3}_[A-Z][a-z]{3}$/;

class FolderProblem extends Error {
  constructor(readonly status: 'incomplete' | 'corrupt', message: string) {
    super(message);
  }
}

async function readJson(path: string, required: boolean): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      if (required) throw new FolderProblem('incomplete', `${path} is missing`);
      return undefined;
    }
    throw new FolderProblem('corrupt', `${path} cannot be read: ${(err as Error).message}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new FolderProblem('corrupt', `${path} is not valid JSON (${(err as Error).message})`);
  }
}

async function fileSize(path: string): Promise<number | undefined> {
  try {
    const s = await stat(path);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}

function familyOf(name: string, declared: Declaration | undefined, config: Record<string, unknown>): ModelFamily | undefined {
  const d = declared?.family?.toLowerCase();
  if (d === 'marian' || d === 'nllb') return d;
  if (d) throw new FolderProblem('corrupt', `dragoman.json: unknown family "${declared!.family}" (marian or nllb)`);
  if (/nllb/i.test(name) || config.tokenizer_class === 'NllbTokenizer') return 'nllb';
  if (config.model_type === 'marian' || /opus-mt/i.test(name)) return 'marian';
  return undefined;
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
function marianLanguages(path: string, name: string, declared: Declaration | undefined, tokenizerJson: Record<string, unknown>) {
  const named = languagesFromName(name);
  const sources = list(declared?.source);
  const targets = list(declared?.target);
  const pieces = targetTokenPieces(tokenizerJson);
  if (!sources.length && !named) throw new FolderProblem('incomplete', `${path}: no source in dragoman.json and the folder name does not end in <source>-<target>`);
  const sourceCodes = [...new Set(sources.length ? sources.map((c) => flores(c, 'source', false)) : [flores(named![0], 'source', true)])];
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

export async function readModelFolder(path: string, precision: 'int8' | 'fp32'): Promise<ModelFolder> {
  const name = basename(path);
  const info: ModelInfo = { name, path, family: undefined, sources: [], targets: [], precision: undefined, sizeBytes: 0, status: 'ok' };
  try {
    const declared = (await readJson(join(path, DECLARATION_FILE), false)) as Declaration | undefined;
    const config = (await readJson(join(path, 'config.json'), true))!;
    const generation = (await readJson(join(path, 'generation_config.json'), false)) ?? {};
    const family = familyOf(name, declared, config);
    info.family = family;
    if (!family) throw new FolderProblem('corrupt', `${path}: cannot tell the model family (add dragoman.json {"family":"marian"|"nllb"})`);

    const sizes: Record<string, number | undefined> = {};
    const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'generation_config.json',
      'onnx/encoder_model.onnx', 'onnx/decoder_model_merged.onnx',
      'onnx/encoder_model_quantized.onnx', 'onnx/decoder_model_merged_quantized.onnx'];
    for (const f of files) sizes[f] = await fileSize(join(path, f));
    const quantized = sizes['onnx/encoder_model_quantized.onnx'] !== undefined && sizes['onnx/decoder_model_merged_quantized.onnx'] !== undefined;
    const suffix = precision === 'int8' && quantized ? '_quantized' : '';
    info.precision = suffix ? 'int8' : 'fp32';
    const used = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'generation_config.json',
      `onnx/encoder_model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`];
    for (const f of ['tokenizer.json', `onnx/encoder_model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`]) {
      if (sizes[f] === undefined) throw new FolderProblem('incomplete', `${join(path, f)} is missing`);
      if (sizes[f] === 0) throw new FolderProblem('corrupt', `${join(path, f)} is empty`);
    }
    for (const f of [`onnx/encoder_model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`]) {
      const problem = await onnxFileProblem(join(path, f));
      if (problem) throw new FolderProblem('corrupt', problem);
    }
    info.sizeBytes = used.reduce((sum, f) => sum + (sizes[f] ?? 0), 0);
    const tokenizerJson = (await readJson(join(path, 'tokenizer.json'), true))!;

    let targetTokens: Record<string, string> | undefined;
    if (family === 'marian') {
      ({ sources: info.sources, targets: info.targets, targetTokens } = marianLanguages(path, name, declared, tokenizerJson));
    } else {
      const added = Array.isArray(tokenizerJson.added_tokens) ? (tokenizerJson.added_tokens as { content?: unknown }[]) : [];
      const codes = added.map((t) => String(t.content)).filter((t) => NLLB_CODE.test(t));
      const langs = [...new Set(codes.map((c) => languageByNllb(c)?.flores).filter((f): f is string => !!f))];
      if (!langs.length) throw new FolderProblem('corrupt', `${join(path, 'tokenizer.json')} declares no NLLB language tokens`);
      info.sources = langs;
      info.targets = langs;
    }
    const rules = generationRules(family, config, generation);
    const dims = decoderDims(config);
    if (!dims.layers || !dims.heads) throw new FolderProblem('corrupt', `${join(path, 'config.json')} lacks decoder_layers / decoder_attention_heads / d_model`);
    const encoderPath = join(path, `onnx/encoder_model${suffix}.onnx`);
    const decoderPath = join(path, `onnx/decoder_model_merged${suffix}.onnx`);
    return {
      info,
      runtime: { name, encoderPath, decoderPath, rules, dims, stamps: { encoder: fileStamp(encoderPath), decoder: fileStamp(decoderPath) } },
      ...(targetTokens ? { targetTokens } : {}),
    };
  } catch (err) {
    if (!(err instanceof FolderProblem)) throw err;
    info.status = err.status;
    info.problem = err.message;
    return { info };
  }
}
