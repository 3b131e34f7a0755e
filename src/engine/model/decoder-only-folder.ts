// A decoder-only translator's folder (an LLM translator): its graph in either layout people carry into a site, and its
// dragoman.json, which declares the prompt and the languages. The optimum / transformers.js layout keeps config.json
// beside onnx/model{,_quantized,_q4}.onnx; onnxruntime-genai's model builder keeps genai_config.json beside the graph
// it names (MatMulNBits int4 weights, GroupQueryAttention). docs/models.md, "LLM translators", tells the same.
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { DecoderOnlySpec } from './runtime-spec.ts';
import type { ModelInfo, ModelPrecision, PrecisionSetting } from '../types.ts';
import { DECODER_ONLY_TYPES, decoderDims, generationRules } from './family.ts';
import { fileStamp } from './file-stamp.ts';
import { FolderProblem, fileSize, readJson } from './folder-files.ts';
import { onnxFileProblem } from './onnx-file-check.ts';
import { promptAbilities, readTranslatorPrompt, type TranslatorPrompt } from './translator-prompt.ts';

export const GENAI_CONFIG = 'genai_config.json';

type Json = Record<string, unknown>;

/** The optimum layout's graphs by precision (transformers.js's dtype names: fp32, q8, q4). */
const OPTIMUM_FILES: Record<ModelPrecision, string> = { fp32: 'onnx/model.onnx', int8: 'onnx/model_quantized.onnx', int4: 'onnx/model_q4.onnx' };
const LARGER: Record<ModelPrecision, ModelPrecision[]> = { int4: ['int4', 'int8', 'fp32'], int8: ['int8', 'fp32'], fp32: ['fp32'] };

/** Bytes of a graph with its external weights (`model.onnx_data`), or undefined when the graph is absent. */
async function graphBytes(path: string): Promise<number | undefined> {
  const graph = await fileSize(path);
  return graph === undefined ? undefined : graph + ((await fileSize(`${path}_data`)) ?? 0);
}

/**
 * Precisions read, by file and its stamp: the models folder is scanned again at every change (models-watch.ts), and
 * reading 8 MB of every LLM graph each time would be most of a rescan.
 */
const precisions = new Map<string, { stamp: string; precision: ModelPrecision }>();

/** What a graph's weights are, from the operators it names (its nodes come before its weights in the file). */
async function graphPrecision(path: string): Promise<ModelPrecision> {
  const stamp = fileStamp(path);
  const known = precisions.get(path);
  if (known?.stamp === stamp) return known.precision;
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(8 * 2 ** 20);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const text = head.subarray(0, bytesRead).toString('latin1');
    const precision = text.includes('MatMulNBits') ? 'int4' : /MatMulInteger|DynamicQuantizeLinear|QLinearMatMul/.test(text) ? 'int8' : 'fp32';
    precisions.set(path, { stamp, precision });
    return precision;
  } finally {
    await file.close();
  }
}

function declaredPrompt(path: string, declared: Json | undefined): { prompt: TranslatorPrompt; sources: string[]; targets: string[]; pairs?: [string, string][] } {
  const file = join(path, 'dragoman.json');
  if (!declared) {
    throw new FolderProblem('incomplete', `${file} is missing: an LLM translator needs it to declare its prompt and languages, e.g. `
      + '{"prompt":"Translate from {source_name} to {target_name}:\\n{text}","languages":{"en":"English","de":"German"}} (docs/models.md)');
  }
  const { prompt, floresOf } = readTranslatorPrompt(file, declared);
  const { names } = prompt;
  const { pairs } = declared;
  const all = Object.keys(names).sort();
  if (pairs === undefined) return { prompt, sources: all, targets: all };
  if (!Array.isArray(pairs) || !pairs.length) throw new FolderProblem('corrupt', `${file}: "pairs" must be a list of [source, target] codes`);
  const list = pairs.map((p): [string, string] => {
    if (!Array.isArray(p) || p.length !== 2 || !floresOf[String(p[0])] || !floresOf[String(p[1])] || p[0] === p[1]) {
      throw new FolderProblem('corrupt', `${file}: pair ${JSON.stringify(p)} is not two different codes of "languages"`);
    }
    return [floresOf[String(p[0])]!, floresOf[String(p[1])]!];
  });
  return {
    prompt, pairs: list,
    sources: [...new Set(list.map((p) => p[0]))].sort(), targets: [...new Set(list.map((p) => p[1]))].sort(),
  };
}

/** The generation settings of a genai folder, in config.json's words (generationRules reads them). */
function genaiConfig(file: string, genai: Json): { config: Json; generation: Json; graph: string } {
  const model = (genai.model ?? {}) as Json;
  const decoder = (model.decoder ?? {}) as Json;
  if (typeof decoder.filename !== 'string') throw new FolderProblem('corrupt', `${file}: model.decoder.filename is missing`);
  const config: Json = {
    model_type: model.type, vocab_size: model.vocab_size, max_position_embeddings: model.context_length,
    num_hidden_layers: decoder.num_hidden_layers, num_key_value_heads: decoder.num_key_value_heads, head_dim: decoder.head_size,
    num_attention_heads: decoder.num_attention_heads, hidden_size: decoder.hidden_size,
  };
  const search = (genai.search ?? {}) as Json;
  return { config, generation: { eos_token_id: model.eos_token_id, pad_token_id: model.pad_token_id, num_beams: search.num_beams }, graph: decoder.filename };
}

export interface DecoderOnlyFolder {
  runtime: DecoderOnlySpec;
  prompt: TranslatorPrompt;
}

/** True when the folder holds a decoder-only model (genai_config.json, or config.json's model_type is one). */
export function isDecoderOnly(config: Json | undefined, genai: Json | undefined): boolean {
  return !!genai || DECODER_ONLY_TYPES[String(config?.model_type)] !== undefined;
}

/** Fills `info` (family, languages, precision, size) and returns the worker's spec and the prompt. */
export async function readDecoderOnlyFolder(
  path: string, info: ModelInfo, precision: PrecisionSetting, declared: Json | undefined, config: Json | undefined, genai: Json | undefined,
): Promise<DecoderOnlyFolder> {
  const genaiFile = join(path, GENAI_CONFIG);
  const read = genai ? genaiConfig(genaiFile, genai) : undefined;
  const modelConfig = read?.config ?? config!;
  const family = DECODER_ONLY_TYPES[String(modelConfig.model_type)];
  if (!family) {
    throw new FolderProblem('corrupt', `${genaiFile}: model.type ${JSON.stringify(modelConfig.model_type ?? null)} is not a known decoder-only type (${Object.keys(DECODER_ONLY_TYPES).join(', ')})`);
  }
  info.family = family;
  const languages = declaredPrompt(path, declared);
  info.sources = languages.sources;
  info.targets = languages.targets;
  if (languages.pairs) info.pairs = languages.pairs;
  info.prompt = promptAbilities(languages.prompt);

  let graph: string;
  if (read) {
    graph = join(path, read.graph);
    const bytes = await graphBytes(graph);
    if (bytes === undefined) throw new FolderProblem('incomplete', `${graph} is missing (${GENAI_CONFIG} names it)`);
    info.sizeBytes = bytes;
  } else {
    const sizes = new Map<ModelPrecision, number>();
    for (const [p, f] of Object.entries(OPTIMUM_FILES) as [ModelPrecision, string][]) {
      const bytes = await graphBytes(join(path, f));
      if (bytes) sizes.set(p, bytes);
    }
    const chosen = precision === 'auto'
      ? [...sizes.entries()].sort((a, b) => a[1] - b[1])[0]?.[0]
      : LARGER[precision].find((p) => sizes.has(p));
    if (!chosen) throw new FolderProblem('incomplete', `${join(path, 'onnx')}: no model.onnx, model_quantized.onnx or model_q4.onnx`);
    graph = join(path, OPTIMUM_FILES[chosen]);
    info.sizeBytes = sizes.get(chosen)!;
  }
  const problem = await onnxFileProblem(graph);
  if (problem) throw new FolderProblem('corrupt', problem);
  info.precision = await graphPrecision(graph);
  for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
    if ((await fileSize(join(path, f))) === undefined) throw new FolderProblem('incomplete', `${join(path, f)} is missing`);
  }
  const generation = read?.generation ?? (await readJson(join(path, 'generation_config.json'), false)) ?? {};
  const rules = generationRules(family, modelConfig, generation);
  const dims = decoderDims(modelConfig);
  if (!dims.layers || !dims.heads || !dims.headDim) {
    throw new FolderProblem('corrupt', `${read ? genaiFile : join(path, 'config.json')} lacks num_hidden_layers / num_key_value_heads / head_dim`);
  }
  return {
    runtime: { kind: 'decoder-only', name: info.name, modelPath: graph, layout: read ? 'genai' : 'optimum', rules, dims, stamps: { model: fileStamp(graph) } },
    prompt: languages.prompt,
  };
}
