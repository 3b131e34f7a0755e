// Reads one model folder (Hugging Face Xenova/Optimum ONNX layout): which family, which languages, which files at
// the chosen precision, and what is wrong with it when something is. File checks only; ONNX loading is the pool's.
import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { languageByNllb, resolveLanguage } from '../languages/catalog.ts';
import { decoderDims, generationRules } from './family.ts';
import type { ModelRuntimeSpec } from './protocol.ts';
import type { ModelFamily, ModelInfo } from './types.ts';

export interface ModelFolder {
  info: ModelInfo;
  /** Present when the files are all there and readable (info.status 'ok' so far). */
  runtime?: ModelRuntimeSpec;
}

/** Optional `dragoman.json` beside the model files. */
interface Declaration {
  family?: string;
  source?: string;
  target?: string;
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

/** `opus-mt-en-de`, `Xenova--opus-mt-en-de`, `tiny-marian-en-de`: the last two dash-separated parts. */
function languagesFromName(name: string): [string, string] | undefined {
  const m = /(?:^|[-_.])([a-z]{2,3}(?:_[A-Za-z]{4})?)-([a-z]{2,3}(?:_[A-Za-z]{4})?)$/.exec(name);
  return m ? [m[1]!, m[2]!] : undefined;
}

function flores(code: string, what: string): string {
  const lang = resolveLanguage(code);
  if (!lang) throw new FolderProblem('corrupt', `${what} language "${code}" is not in the language catalog`);
  return lang.flores;
}

export async function readModelFolder(path: string, precision: 'int8' | 'fp32'): Promise<ModelFolder> {
  const name = basename(path);
  const info: ModelInfo = { name, path, family: undefined, sources: [], targets: [], precision: undefined, sizeBytes: 0, status: 'ok' };
  try {
    const declared = (await readJson(join(path, 'dragoman.json'), false)) as Declaration | undefined;
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
    info.sizeBytes = used.reduce((sum, f) => sum + (sizes[f] ?? 0), 0);
    const tokenizerJson = (await readJson(join(path, 'tokenizer.json'), true))!;

    if (family === 'marian') {
      const codes = declared?.source && declared.target ? [declared.source, declared.target] : languagesFromName(name);
      if (!codes) throw new FolderProblem('incomplete', `${path}: no dragoman.json and the folder name does not end in <source>-<target>`);
      info.sources = [flores(codes[0]!, 'source')];
      info.targets = [flores(codes[1]!, 'target')];
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
    return {
      info,
      runtime: {
        name,
        encoderPath: join(path, `onnx/encoder_model${suffix}.onnx`),
        decoderPath: join(path, `onnx/decoder_model_merged${suffix}.onnx`),
        rules,
        dims,
      },
    };
  } catch (err) {
    if (!(err instanceof FolderProblem)) throw err;
    info.status = err.status;
    info.problem = err.message;
    return { info };
  }
}
