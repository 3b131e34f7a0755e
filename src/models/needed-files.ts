// Exactly the files Dragoman needs from a repository, for each layout it reads (the repositories also carry
// decoder_model.onnx, decoder_with_past_model.onnx, fp16/q4f16 variants ... which would multiply the download for
// nothing).
import type { Precision } from '../config/env.ts';

/** What `models pull --precision` takes: DRAGOMAN_PRECISION's values (int4 and auto: the smallest graphs present). */
export type PullPrecision = Precision;

/** Encoder-decoder (Xenova/Optimum), decoder-only (Optimum / transformers.js), onnxruntime-genai's model builder. */
export type RepoLayout = 'encoder-decoder' | 'decoder-only' | 'genai';

export interface WantedFile {
  path: string;
  /** Missing on the hub is fine (e.g. special_tokens_map.json in some repos). */
  optional: boolean;
  /** Taken too when `path` is there, if present (ONNX external data beside a graph over 2 GB). */
  companions?: string[];
  /** When `path` is missing, this is wanted instead (int4 falls back to int8, int8 to fp32). */
  fallback?: WantedFile;
}

const TOKENIZER: WantedFile[] = [
  { path: 'tokenizer.json', optional: false },
  { path: 'tokenizer_config.json', optional: false },
  { path: 'special_tokens_map.json', optional: true },
  // The model card carries the licence (OPUS-MT: CC-BY 4.0 needs attribution), which must travel with the weights.
  { path: 'README.md', optional: true },
];

/** A graph and its external data: one `.onnx_data` file, or several (`_data_1`, ...) for the largest exports. */
function graph(path: string, dataSuffix: '_data' | '.data', fallback?: WantedFile): WantedFile {
  const data = `${path}${dataSuffix}`;
  return { path, optional: false, companions: [data, `${data}_1`, `${data}_2`, `${data}_3`], ...(fallback ? { fallback } : {}) };
}

function encoderDecoder(precision: PullPrecision): WantedFile[] {
  const graphs = ['encoder_model', 'decoder_model_merged'].map((g) => {
    const fp32 = graph(`onnx/${g}.onnx`, '_data');
    return precision === 'fp32' ? fp32 : { path: `onnx/${g}_quantized.onnx`, optional: false, fallback: fp32 };
  });
  return [{ path: 'config.json', optional: false }, { path: 'generation_config.json', optional: true }, ...TOKENIZER, ...graphs];
}

/** The smallest file the precision allows first: q4, then the int8 `_quantized`, then fp32. */
function decoderGraph(precision: PullPrecision): WantedFile {
  const fp32 = graph('onnx/model.onnx', '_data');
  if (precision === 'fp32') return fp32;
  const int8 = graph('onnx/model_quantized.onnx', '_data', fp32);
  if (precision === 'int8') return int8;
  return graph('onnx/model_q4.onnx', '_data', int8);
}

// Newer repositories keep the chat template in its own file; a repository made for Dragoman may carry dragoman.json.
const LLM_EXTRAS: WantedFile[] = [
  { path: 'chat_template.jinja', optional: true },
  { path: 'dragoman.json', optional: true },
];

export function neededFiles(layout: RepoLayout, precision: PullPrecision): WantedFile[] {
  switch (layout) {
    case 'encoder-decoder':
      return encoderDecoder(precision);
    case 'decoder-only':
      return [
        { path: 'config.json', optional: false },
        { path: 'generation_config.json', optional: true },
        ...TOKENIZER,
        ...LLM_EXTRAS,
        decoderGraph(precision),
      ];
    case 'genai':
      // The builder writes one graph, `model.onnx`; int4 exports are often published as `model_int4.onnx`.
      return [
        { path: 'genai_config.json', optional: false },
        { path: 'config.json', optional: true },
        { path: 'generation_config.json', optional: true },
        ...TOKENIZER,
        ...LLM_EXTRAS,
        graph('model.onnx', '.data', graph('model_int4.onnx', '.data')),
      ];
  }
}
