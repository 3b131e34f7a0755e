// Exactly the files Dragoman needs from a Xenova/Optimum-layout repository (the repos also carry decoder_model.onnx,
// decoder_with_past_model.onnx, fp16/q4 variants ... which would triple the download for nothing).
import type { Precision } from '../config/env.ts';

export interface WantedFile {
  path: string;
  /** Missing on the hub is fine (e.g. special_tokens_map.json in some repos). */
  optional: boolean;
  /** When this file is missing, take these instead (int8 falls back to the fp32 graph). */
  fallback?: string[];
}

const ALWAYS: WantedFile[] = [
  { path: 'config.json', optional: false },
  { path: 'generation_config.json', optional: true },
  { path: 'tokenizer.json', optional: false },
  { path: 'tokenizer_config.json', optional: false },
  { path: 'special_tokens_map.json', optional: true },
  // The model card carries the licence (OPUS-MT: CC-BY 4.0 needs attribution), which must travel with the weights.
  { path: 'README.md', optional: true },
];

const GRAPHS = ['encoder_model', 'decoder_model_merged'] as const;

export function neededFiles(precision: Precision): WantedFile[] {
  const graphs: WantedFile[] = GRAPHS.flatMap((g) => {
    const fp32: WantedFile[] = [
      { path: `onnx/${g}.onnx`, optional: false },
      // Graphs over 2 GB keep their weights beside them (ONNX external data).
      { path: `onnx/${g}.onnx_data`, optional: true },
    ];
    if (precision === 'fp32') return fp32;
    return [{ path: `onnx/${g}_quantized.onnx`, optional: false, fallback: fp32.map((f) => f.path) }];
  });
  return [...ALWAYS, ...graphs];
}
