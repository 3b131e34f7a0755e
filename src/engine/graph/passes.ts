// The rewrites the step model gets, as one declared, ordered list. Optimum's merged decoder is first cut in two
// (decoder-split.ts); each pass below then takes the graphs as the passes before it left them and either returns
// them rewritten, having run its own check on onnxruntime, or leaves them as they were (a pattern it does not match,
// a check that fails: slower, never wrong). prepare.ts runs the list once per decoder file and keeps the result on
// disk, keyed by the file's hash and each pass's name and version: bump a pass's version when its output changes.
import { attentionFusionPass } from './attention-fusion.ts';
import { beamLoopPass } from './beam-loop.ts';
import { splitMergedDecoder } from './decoder-split.ts';
import { greedyLoopPass } from './greedy-loop.ts';
import { signedWeightsPass } from './signed-weights.ts';
import { searchOutputsPass } from './top-candidates.ts';
import type { GraphPass, GraphSettings, PassContext, StepGraphs } from './pass.ts';

/** Version of the cut (decoder-split.ts), the step before every pass. */
export const SPLIT_VERSION = 1;

export const PASSES: readonly GraphPass[] = [signedWeightsPass, attentionFusionPass, searchOutputsPass, greedyLoopPass, beamLoopPass];

/** Names and versions of the cut and every pass: what a cached result must have been made by. */
export function passVersions(): string {
  return [`split@${SPLIT_VERSION}`, ...PASSES.map((p) => `${p.name}@${p.version}`)].join(',');
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

/** Every wanted pass in order over the cut decoder; a pass that throws is left out like one that declines. */
export async function runPasses(graphs: StepGraphs, ctx: PassContext): Promise<StepGraphs> {
  let g = graphs;
  for (const pass of PASSES) {
    if (ctx.settings.skip.includes(pass.name) || !pass.wanted(ctx, g)) continue;
    const next = await pass.run(g, ctx).catch(() => undefined);
    if (next) g = { ...next, facts: { ...next.facts, passes: [...g.facts.passes, pass.name] } };
  }
  return g;
}
