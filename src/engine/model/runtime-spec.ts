// What a worker is told of a model folder to open its sessions: the files, the family's rules and the decoder's
// dimensions, as model-folder.ts reads them. The pool adds the prepared graphs (pool/protocol.ts).
import type { DecoderDims, GenerationRules } from './family.ts';

/** Everything a worker needs to open one model's ONNX sessions. */
export type ModelRuntimeSpec = Seq2SeqSpec | DecoderOnlySpec;

/** An encoder-decoder model: its encoder and merged decoder (runtime/seq2seq.ts). */
export interface Seq2SeqSpec {
  kind: 'encoder-decoder';
  name: string;
  encoderPath: string;
  decoderPath: string;
  rules: GenerationRules;
  dims: DecoderDims;
  /** fileStamp (file-stamp.ts) of both files when the folder was read: a worker loading later checks them. */
  stamps: { encoder: string; decoder: string };
}

/** A decoder-only translator: one graph with its KV cache (runtime/causal-lm.ts). */
export interface DecoderOnlySpec {
  kind: 'decoder-only';
  name: string;
  modelPath: string;
  /**
   * optimum: `past_key_values.*` and position ids, rows batched with padding; genai: the model builder's graph
   * (GroupQueryAttention reads positions from the attention mask), each row run on its own.
   */
  layout: 'optimum' | 'genai';
  rules: GenerationRules;
  /** Its KV cache: layers, key/value heads, head size. */
  dims: DecoderDims;
  stamps: { model: string };
}
