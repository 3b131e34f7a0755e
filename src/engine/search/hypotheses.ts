// A row's finished hypotheses during beam search (Hugging Face's BeamHypotheses): the best `size` by
// sum_logprobs / generated_len^length_penalty, and whether the row is done.

interface Hypothesis {
  score: number;
  tokens: number[];
}

/** The finished hypotheses of one row (BeamHypotheses). */
export class Hypotheses {
  readonly list: Hypothesis[] = [];
  private worst = 1e9;
  constructor(private readonly size: number, private readonly lengthPenalty: number, private readonly earlyStopping: boolean) {}

  add(sumLogprobs: number, tokens: number[], generatedLen: number): void {
    const score = sumLogprobs / Math.pow(generatedLen, this.lengthPenalty);
    if (this.list.length < this.size || score > this.worst) {
      this.list.push({ score, tokens });
      if (this.list.length > this.size) {
        const order = this.list.map((h, i) => [h.score, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        this.list.splice(order[0]![1], 1);
        this.worst = order[1]![0];
      } else {
        this.worst = Math.min(score, this.worst);
      }
    }
  }

  isDone(bestRunning: number, curLen: number): boolean {
    if (this.list.length < this.size) return false;
    if (this.earlyStopping) return true;
    return this.worst >= bestRunning / Math.pow(curLen, this.lengthPenalty);
  }

  /** Best first; on equal scores the later one first (Python's sorted(...).pop()). */
  ranked(): number[][] {
    return this.list
      .map((h, i) => ({ h, i }))
      .sort((a, b) => b.h.score - a.h.score || b.i - a.i)
      .map((x) => x.h.tokens);
  }
}
