// A batch's decoder state (the encoder output and the KV cache) and the row operations search needs on it: one copy
// per beam, rows reordered after a beam step, finished rows dropped.
import ort from 'onnxruntime-node';
import type { DecoderState } from './search-decoder.ts';

export interface Encoded {
  hidden: ort.Tensor;
  mask: ort.Tensor;
  rows: number;
}

/** Decoder KV cache of a batch; encoder K/V are kept from step 0 (the cached branch may return them empty). */
export interface Seq2SeqState extends DecoderState {
  encoded: Encoded;
  past: Record<string, ort.Tensor>;
  step: number;
  /** The vocabulary ids the output projection runs over (graph/output-subset.ts), when the step model takes them. */
  vocab?: ort.Tensor;
}

export function repeatRows(t: ort.Tensor, times: number): ort.Tensor {
  const rows = t.dims[0]!;
  const from: number[] = [];
  for (let r = 0; r < rows; r++) for (let k = 0; k < times; k++) from.push(r);
  return gatherRows(t, from);
}

/**
 * Row i becomes old row `from[i]`, in the tensor's own buffer (the cache tensors are ours: onnxruntime-node copies
 * each output into a new ArrayBuffer). Only rows that move are copied: most beams stay where they are from one step
 * to the next, and a fresh copy of the whole cache per step (up to hundreds of MB for a large beam batch late in a
 * long output) cost time and left that much garbage behind each step.
 */
export function permuteRows(t: ort.Tensor, from: readonly number[]): void {
  const data = t.data as Float32Array;
  const rows = t.dims[0]!;
  if (from.length !== rows) throw new Error(`reorder: ${from.length} rows for a cache of ${rows}`);
  const per = data.length / rows;
  const moved = new Map<number, Float32Array>();
  from.forEach((r, i) => {
    if (r !== i && !moved.has(r)) moved.set(r, data.slice(r * per, (r + 1) * per));
  });
  from.forEach((r, i) => {
    if (r !== i) data.set(moved.get(r)!, i * per);
  });
}

export function gatherRows(t: ort.Tensor, from: readonly number[]): ort.Tensor {
  const data = t.data as Float32Array | BigInt64Array;
  const per = data.length / t.dims[0]!;
  const out = new (data.constructor as Float32ArrayConstructor | BigInt64ArrayConstructor)(per * from.length);
  from.forEach((r, i) => (out as Float32Array).set((data as Float32Array).subarray(r * per, (r + 1) * per), i * per));
  return new ort.Tensor(t.type as 'float32', out as Float32Array, [from.length, ...t.dims.slice(1)]);
}
