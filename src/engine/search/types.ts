// What search is given: rows (one source sentence each, tokenized, with its own limits) and the job that searches
// them together, as the hop makes them, the batcher groups them and a worker runs them.
import type { Priority } from '../types.ts';
import type { RowConstraints } from './constraints.ts';

/** One source sentence, already tokenized, with its own limits. */
export interface GenerationRow {
  ids: number[];
  maxNewTokens: number;
  minNewTokens: number;
  forcedFirstId: number | undefined;
  /** Phrases the output must contain (search/constraints.ts): such rows go to search/constrained-beam.ts. */
  constraints?: RowConstraints;
}

export interface GenerationJob {
  model: string;
  rows: GenerationRow[];
  /** 1 = greedy. */
  beams: number;
  /** Hypotheses to return per row (<= beams), best first. */
  nBest: number;
  /** Absent: interactive. */
  priority?: Priority;
}
