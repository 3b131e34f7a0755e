// The rewrites that keep the model's meaning, as one declared, ordered list: the same logits and cache, computed by
// fewer or faster operators. Optimum's merged decoder is first cut in two (decoder-split.ts); each pass then takes
// the graphs as the passes before it left them and either returns them rewritten, having run its own check on
// onnxruntime, or leaves them as they were (a pattern it does not match, a check that fails: slower, never wrong).
// runtime/prepare.ts runs them at load, once per decoder file, followed by the search graphs built over the result
// (search-graphs/passes.ts), and keeps the result on disk, keyed by the file's hash and each pass's name and version:
// bump a pass's version when its output changes.
import { attentionFusionPass } from './attention-fusion.ts';
import { splitMergedDecoder } from './decoder-split.ts';
import { outputSubsetPass } from './output-subset.ts';
import { signedWeightsPass } from './signed-weights.ts';
import type { GraphPass, GraphSettings, PassContext, StepGraphs } from './pass.ts';

/** Version of the cut (decoder-split.ts), the step before every pass. */
export const SPLIT_VERSION = 1;

/** The meaning-preserving rewrites, in the order they run. */
export const REWRITES: readonly GraphPass[] = [signedWeightsPass, attentionFusionPass, outputSubsetPass];

/** Names and versions of the cut and of these passes: what a cached result must have been made by. */
export function passVersions(passes: readonly GraphPass[]): string {
  return [`split@${SPLIT_VERSION}`, ...passes.map((p) => `${p.name}@${p.version}`)].join(',');
}

/** The merged decoder cut in two, or undefined when it cannot be (the runtime then runs the file as it is). */
export function splitDecoder(merged: Uint8Array, settings: GraphSettings): StepGraphs | undefined {
  if (settings.skip.includes('split')) return undefined;
  let parts;
  try {
    parts = splitMergedDecoder(merged);
  } catch {
    // Not a protobuf we can read: onnxruntime's own error at load says what is wrong with the file.
  }
  if (!parts) return undefined;
  return {
    crossKv: parts.crossKv, step: parts.withPast, model: parts.withPast,
    facts: { passes: ['split'], signedWeights: false, fusedAttention: 0, search: false },
  };
}

/** Every wanted pass of `passes` in order over the cut decoder; a pass that throws is left out like one that declines. */
export async function runPasses(graphs: StepGraphs, ctx: PassContext, passes: readonly GraphPass[]): Promise<StepGraphs> {
  let g = graphs;
  for (const pass of passes) {
    if (ctx.settings.skip.includes(pass.name) || !pass.wanted(ctx, g)) continue;
    const next = await pass.run(g, ctx).catch(() => undefined);
    if (next) g = { ...next, facts: { ...next.facts, passes: [...g.facts.passes, pass.name] } };
  }
  return g;
}
