// Text -> posterior over the catalog varieties its script allows, with the model of model.ts.
import { forEachFeature } from './features.ts';
import type { LidModel } from './model.ts';
import { LOW_ORDER_SCRIPTS, possibleScripts, scriptCounts } from './script.ts';

export interface Ranking {
  /** Candidate class indices (model.header.classes), best first. */
  classes: number[];
  /** Posterior probability of each, same order; sums to 1. */
  probabilities: number[];
  /** Total log-likelihood minus the best one's (0 for the first), same order: for calibration. */
  deltas: number[];
  letters: number;
}

export class Classifier {
  private readonly byScript = new Map<string, number[]>();
  private readonly scores: Float64Array;

  constructor(readonly model: LidModel) {
    model.header.classes.forEach((flores, i) => {
      const script = flores.slice(flores.indexOf('_') + 1);
      this.byScript.set(script, [...(this.byScript.get(script) ?? []), i]);
    });
    this.scores = new Float64Array(model.classCount);
  }

  /** Class indices of the model that write `script` (a FLORES script subtag). */
  classesOfScript(script: string): readonly number[] {
    return this.byScript.get(script) ?? [];
  }

  /** Ranks the varieties possible for `text`; undefined when it has no letters of a catalog script. */
  rank(text: string, tau = this.model.header.tau): Ranking | undefined {
    const scripts = possibleScripts(scriptCounts(text));
    const candidates = scripts.flatMap((s) => this.byScript.get(s) ?? []);
    if (candidates.length === 0) return undefined;
    const minOrder = scripts.some((s) => LOW_ORDER_SCRIPTS.has(s)) ? 1 : 3;
    const scores = this.scores;
    scores.fill(0);
    let features = 0;
    const model = this.model;
    const letters = forEachFeature(text, minOrder, (hash) => {
      features++;
      model.addFeature(hash, scores);
    });
    const unseen = model.header.unseen;
    const total = candidates.map((c) => scores[c]! + features * unseen[c]!);
    const order = candidates.map((_, i) => i).sort((a, b) => total[b]! - total[a]!);
    const best = total[order[0]!]!;
    const deltas = order.map((i) => total[i]! - best);
    const exps = deltas.map((d) => Math.exp(tau * d));
    const sum = exps.reduce((a, b) => a + b, 0);
    return { classes: order.map((i) => candidates[i]!), probabilities: exps.map((e) => e / sum), deltas, letters };
  }
}
