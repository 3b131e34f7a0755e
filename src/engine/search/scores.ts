// Scans over a row of logits (58,101 a step for OPUS-MT), for the steps search reads whole rows in JavaScript: greedy
// search without the decoder's top candidates, and constrained beam search.

/** Largest value (NaN ignored; -Infinity when none): four running maxima instead of one dependency chain. */
export function maxOf(values: Float32Array): number {
  const n = values.length;
  let m0 = -Infinity;
  let m1 = -Infinity;
  let m2 = -Infinity;
  let m3 = -Infinity;
  let v = 0;
  for (; v + 3 < n; v += 4) {
    const x0 = values[v]!;
    const x1 = values[v + 1]!;
    const x2 = values[v + 2]!;
    const x3 = values[v + 3]!;
    if (x0 > m0) m0 = x0;
    if (x1 > m1) m1 = x1;
    if (x2 > m2) m2 = x2;
    if (x3 > m3) m3 = x3;
  }
  for (; v < n; v++) if (values[v]! > m0) m0 = values[v]!;
  let max = m0;
  if (m1 > max) max = m1;
  if (m2 > max) max = m2;
  if (m3 > max) max = m3;
  return max;
}

/**
 * First index of the maximum, like torch.argmax (NaN never wins; all -Infinity gives 0): maxOf's four running
 * maxima, then indexOf finds the first index holding that value, so ties still go to the lowest index.
 */
export function argmax(scores: Float32Array): number {
  const max = maxOf(scores);
  return max === -Infinity ? 0 : scores.indexOf(max);
}

/** A row's log-softmax statistics: log_softmax(x) = (x − max) − logSum, as PyTorch's float32 kernel computes it. */
export interface SoftmaxStats {
  max: number;
  logSum: number;
}

/** max and log Σ exp(x − max) of a row (the sum accumulated in double, the log rounded to float32). */
export function softmaxStats(logits: Float32Array): SoftmaxStats {
  const max = maxOf(logits);
  let sum = 0;
  for (let v = 0; v < logits.length; v++) sum += Math.exp(logits[v]! - max);
  return { max, logSum: Math.fround(Math.log(sum)) };
}

/** One log-probability in float32: f32(f32(x − max) − logSum), each operation rounded as float32 arithmetic is. */
export const logProb = (x: number, stats: SoftmaxStats): number => Math.fround(Math.fround(x - stats.max) - stats.logSum);

/** log_softmax of a row into `out`, float32 like torch's. */
export function logSoftmax(logits: Float32Array, out: Float32Array, stats: SoftmaxStats = softmaxStats(logits)): void {
  for (let v = 0; v < logits.length; v++) out[v] = logProb(logits[v]!, stats);
}
