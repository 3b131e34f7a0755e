// The search graphs built at load, in the order they run: what greedy and beam search read of a step computed by
// onnxruntime beside the logits (top-candidates.ts), then the step model wrapped in greedy search's Loop
// (greedy-loop.ts) and in beam search's beside it (beam-loop.ts). They are graph passes like graph/'s rewrites (same
// shape, same checks, same cache), but not meaning-preserving ones: they add search to the model, so they sit beside
// the search they speed up (src/engine/search) rather than in graph/, and runtime/prepare.ts runs them after graph/'s.
import type { GraphPass } from '../graph/pass.ts';
import { beamLoopPass } from './beam-loop.ts';
import { greedyLoopPass } from './greedy-loop.ts';
import { searchOutputsPass } from './top-candidates.ts';

export const SEARCH_GRAPHS: readonly GraphPass[] = [searchOutputsPass, greedyLoopPass, beamLoopPass];
