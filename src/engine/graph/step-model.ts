// The split decoder's with-past ("step") model as the engine runs it, made from the merged decoder file: cut out
// (decoder-split.ts), the output projection signed on VNNI CPUs (signed-weights.ts), attention fused
// (attention-fusion.ts) and the search outputs added (top-candidates.ts). seq2seq.ts makes it once at load, checking
// each stage; step-sessions.ts needs the same bytes again later for a twin session and gets them from a thread of
// their own: the ~0.6 s of synchronous JavaScript (OPUS-MT-base) would otherwise hold up the decoding worker's steps.
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { fuseAttention } from './attention-fusion.ts';
import { assertUnchanged } from '../model/file-stamp.ts';
import { splitMergedDecoder } from './decoder-split.ts';
import { cpuHasVnni } from '../runtime/cpu-features.ts';
import { signedMatMulWeights } from './signed-weights.ts';
import { withSearchLoops } from './beam-loop.ts';
import { withGreedyLoop } from './greedy-loop.ts';
import { withSearchOutputs } from './top-candidates.ts';

/** On a VNNI CPU the uint8 output projection is stored as int8 (same products, a faster kernel: signed-weights.ts). */
export function signedStepModel(withPast: Uint8Array): { plain: Uint8Array; signed: boolean } {
  const signed = cpuHasVnni() ? signedMatMulWeights(withPast) : undefined;
  return { plain: signed ?? withPast, signed: !!signed };
}

/** The with-past model with the search outputs when a search uses them (else, or where they cannot be added, as it is). */
export function withSearch(model: Uint8Array, search: boolean): Uint8Array {
  return (search ? withSearchOutputs(model) : undefined) ?? model;
}

/** What was done to the step model at load, to do again. */
export interface StepModelRecipe {
  decoderPath: string;
  /** The file as it was read at start (file-stamp.ts): a file replaced since is refused rather than rebuilt. */
  stamp: string;
  /** Attention heads when attention was fused at load, 0 when not. */
  fuseHeads: number;
  search: boolean;
  /**
   * The step wrapped in greedy search's Loop (greedy-loop.ts), with the model's padding and EOS ids, and beam search's
   * beside it (`beam`: beam-loop.ts's withSearchLoops); absent when not.
   */
  loop?: { padId: number; eosId: number; beam: boolean };
}

export function stepModelBytes(recipe: StepModelRecipe): Uint8Array {
  assertUnchanged(recipe.decoderPath, recipe.stamp);
  const parts = splitMergedDecoder(readFileSync(recipe.decoderPath));
  if (!parts) throw new Error(`${recipe.decoderPath}: cannot be cut any more`);
  const { plain } = signedStepModel(parts.withPast);
  const fused = recipe.fuseHeads > 0 ? fuseAttention(plain, recipe.fuseHeads)?.model : plain;
  if (!fused) throw new Error(`${recipe.decoderPath}: attention cannot be fused any more`);
  const step = withSearch(fused, recipe.search);
  if (!recipe.loop) return step;
  const { padId, eosId, beam } = recipe.loop;
  const looped = beam ? withSearchLoops(step, padId, eosId) : withGreedyLoop(step, padId, eosId);
  if (!looped) throw new Error(`${recipe.decoderPath}: the search loops cannot be built any more`);
  return looped;
}

const ENTRY = new URL('../pool/worker-entry.mjs', import.meta.url);

/** stepModelBytes in a thread of its own (step-model-thread.ts); its buffer is moved here, not copied. */
export function stepModelInThread(recipe: StepModelRecipe): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(ENTRY, { workerData: { entry: 'step-model', recipe }, execArgv: [], stdout: false, stderr: false });
    let done = false;
    worker.once('message', (m: { bytes?: Uint8Array; error?: string }) => {
      done = true;
      if (m.bytes) resolve(m.bytes);
      else reject(new Error(m.error ?? 'step model thread failed'));
    });
    worker.once('error', (err) => {
      done = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!done) reject(new Error(`step model thread exited with code ${code}`));
    });
  });
}
