// The test batch a pass's check runs on onnxruntime: two rows, one padded, over the cut decoder's cross-attention K/V,
// fed to a session by the names it declares (the passes add and remove inputs).
import ort from 'onnxruntime-node';
import type { DecoderDims } from '../model/family.ts';

/** The feeds a session declares (the split models take fewer inputs than the merged one). */
export function feedsFor(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Record<string, ort.Tensor> {
  return Object.fromEntries(session.inputNames.map((n) => [n, feeds[n]!]));
}

/** Feeds of a test batch: two rows, one padded, three source positions (openFused, checkGreedyLoop, checkBeamLoop). */
export async function testFeeds(crossKv: ort.InferenceSession, dims: DecoderDims) {
  const { layers, heads, headDim } = dims;
  const mask = new ort.Tensor('int64', BigInt64Array.of(1n, 1n, 1n, 1n, 1n, 0n), [2, 3]);
  const hidden = new ort.Tensor('float32', new Float32Array(2 * 3 * heads * headDim).fill(0.5), [2, 3, heads * headDim]);
  const cross = await crossKv.run({ encoder_hidden_states: hidden });
  const feeds: Record<string, ort.Tensor> = { encoder_attention_mask: mask, [VOCAB_IDS]: CHECK_VOCAB_IDS };
  for (let i = 0; i < layers; i++) {
    for (const kv of ['key', 'value']) {
      feeds[`past_key_values.${i}.encoder.${kv}`] = cross[`present.${i}.encoder.${kv}`] as ort.Tensor;
      feeds[`past_key_values.${i}.decoder.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [2, heads, 0, headDim]);
    }
  }
  return feeds;
}

/** The input of graph/output-subset.ts: the vocabulary ids the output projection runs over (int64 [K], sorted). */
export const VOCAB_IDS = 'vocab_ids';

/** What a check feeds a model with that input: the first 64 ids (every vocabulary has them). */
const CHECK_VOCAB_IDS = new ort.Tensor('int64', BigInt64Array.from({ length: 64 }, (_, i) => BigInt(i)), [64]);
