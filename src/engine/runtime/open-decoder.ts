// The decoder's sessions, opened from what prepare.ts made of the file: the split models (the step model with
// whatever passes applied, and the cross-attention K/V model), or optimum's merged file as it is when it could not be
// cut. Which variant this is stays inside runtime/: search sees seq2seq.ts's step interface only.
import { readFile } from 'node:fs/promises';
import ort from 'onnxruntime-node';
import type { PreparedDecoder } from './prepare.ts';
import { graphIoProblem } from '../model/graph-io.ts';

/** How the decoder runs: optimum's merged file as it is, or cut in two without its `If` (decoder-split.ts). */
export type Decoder =
  | { kind: 'merged'; session: ort.InferenceSession }
  | {
    kind: 'split'; withPast: ort.InferenceSession; crossKv: ort.InferenceSession; signedWeights: boolean; fusedAttention: number;
    /** The step model's bytes again (for a twin session with other options): the cached file, read again. */
    rebuild: () => Promise<Uint8Array>;
    /** k of the `top_ids` output (top-candidates.ts); 0 when the model has none. */
    topCandidates: number;
    /** It has the search outputs (SEARCH of top-candidates.ts). */
    searchOutputs: boolean;
    /** The step model is greedy-loop.ts's Loop (every run feeds its inputs), with the logits' length; else undefined. */
    loop: { vocab: number } | undefined;
    /** The step model holds beam search's Loop beside greedy search's (beam-loop.ts's withSearchLoops). */
    beamLoop: boolean;
    /** Its output projection runs over its `vocab_ids` input (graph/output-subset.ts): the vocabulary's length; else undefined. */
    outputSubset: number | undefined;
  };

/**
 * `candidates`: greedy search's top-k (candidatesNeeded of the model's rules; 0 = none). A split decoder that does not
 * open falls back to the merged file (slower, never wrong).
 */
export async function openDecoder(
  path: string, prepared: PreparedDecoder, options: ort.InferenceSession.SessionOptions, candidates: number,
): Promise<Decoder> {
  if (prepared.kind === 'split') {
    let crossKv: ort.InferenceSession | undefined;
    try {
      const open = (m: string | Uint8Array) => (typeof m === 'string' ? ort.InferenceSession.create(m, options) : ort.InferenceSession.create(m, options));
      crossKv = await open(prepared.crossKv);
      const withPast = await open(prepared.model);
      const { facts } = prepared;
      // The Loop model names its outputs otherwise (loop/...): the facts say whether the step has the search outputs.
      const searchOutputs = facts.search;
      const model = prepared.model;
      const rebuild = async () => (typeof model === 'string' ? new Uint8Array(await readFile(model)) : model);
      return {
        kind: 'split', withPast, crossKv, signedWeights: facts.signedWeights, fusedAttention: facts.fusedAttention,
        topCandidates: searchOutputs ? candidates : 0,
        searchOutputs,
        loop: facts.loop ? { vocab: facts.loop.vocab } : undefined,
        beamLoop: !!facts.loop?.beam,
        outputSubset: facts.outputSubset,
        rebuild,
      };
    } catch {
      await crossKv?.release();
    }
  }
  const session = await ort.InferenceSession.create(path, options);
  const problem = graphIoProblem(path, 'decoder', { inputs: session.inputNames, outputs: session.outputNames });
  if (problem) {
    await session.release();
    throw new Error(problem);
  }
  return { kind: 'merged', session };
}
