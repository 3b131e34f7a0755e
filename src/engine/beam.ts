// Beam search over a batch with Hugging Face BeamSearchScorer semantics (the references were made that way):
// log_softmax -> processors -> + beam score; the top 2*beams candidates per row by (score desc, flat index asc);
// EOS only accepted from the top `beams` ranks; a hypothesis scores sum_logprobs / generated_len^length_penalty
// (EOS counted); a row is done when it has `beams` hypotheses and, unless early_stopping, the worst of them is at
// least the best running score / cur_len^length_penalty.
import type { GenerationRules } from './family.ts';
import { applyRules, candidatesNeeded, rulesAt, type LogitsProcessor, type RowContext } from './logits-processors.ts';
import type { GenerationRow } from './protocol.ts';
import { logSoftmax } from './scores.ts';
import type { Seq2SeqModel } from './seq2seq.ts';

const f32 = Math.fround;

interface Hypothesis {
  score: number;
  tokens: number[];
}

/** The finished hypotheses of one row (BeamHypotheses). */
class Hypotheses {
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

export async function beamSearch(
  model: Seq2SeqModel,
  rules: GenerationRules,
  processors: readonly LogitsProcessor[],
  rows: readonly GenerationRow[],
  beams: number,
  nBest: number,
): Promise<number[][][]> {
  const encoded = model.expand(await model.encode(rows.map((r) => r.ids)), beams);
  const state = model.start(encoded);
  const total = rows.length * beams;
  const hyps = rows.map(() => new Hypotheses(beams, rules.lengthPenalty, rules.earlyStopping));
  // State group p (beams p*beams .. p*beams+beams-1) holds rows[active[p]]. Finished groups are fed padding until a
  // quarter of the state has finished, then dropped from it.
  let active = rows.map((_, i) => i);
  let done = rows.map(() => false);
  // Per state beam: running score and tokens; only beam 0 of each row is live at first.
  let scores: number[] = Array.from({ length: total }, (_, i) => (i % beams === 0 ? 0 : -1e9));
  let seqs: number[][] = Array.from({ length: total }, () => []);
  let tokens = new Array<number>(total).fill(rules.decoderStartId);
  const limit = Math.max(...rows.map((r) => r.maxNewTokens));
  const K = 2 * beams;
  const lp = new Float32Array(rules.vocabSize || 1);
  // With the onnxruntime head (beam-head.ts): each row's best K plus as many as the rules can ban, which contain
  // that row's share of the best K of its sentence once the banned ones are dropped.
  const headK = K + candidatesNeeded(processors) - 1;

  for (let step = 0; step < limit; step++) {
    const curLen = step + 1;
    const logits = await model.step(state, tokens);
    const vocab = logits.length / (active.length * beams);
    const scratch = lp.length === vocab ? lp : new Float32Array(vocab);
    const head = model.beamHead && vocab > headK ? await model.beamHead.candidates(logits, Float32Array.from(scores), headK) : undefined;
    const from: number[] = [];
    const nextTokens: number[] = [];
    const nextScores: number[] = [];
    const nextSeqs: number[][] = [];

    active.forEach((r, p) => {
      const pad = (n: number, score: number) => {
        for (let k = 0; k < n; k++) {
          from.push(p * beams);
          nextTokens.push(rules.padId);
          nextScores.push(score);
          nextSeqs.push([]);
        }
      };
      if (done[p]) return pad(beams, 0);
      const row = rows[r]!;
      const ctx: RowContext = { step, maxNewTokens: row.maxNewTokens, minNewTokens: row.minNewTokens, forcedFirstId: row.forcedFirstId };
      // Top K over beams x vocab: entries [score, beam, token], ordered by score desc then flat index asc.
      const top: [number, number, number][] = [];
      /** Inserts a candidate offered after every candidate of a lower flat index (ties keep the earlier one). */
      const offer = (sc: number, k: number, v: number) => {
        if (top.length === K && !(sc > top[K - 1]![0])) return;
        let i = Math.min(top.length, K - 1);
        top[i] = [sc, k, v];
        while (i > 0 && sc > top[i - 1]![0]) {
          [top[i], top[i - 1]] = [top[i - 1]!, top[i]!];
          i--;
        }
      };
      const { forced, banned } = rulesAt(processors, ctx);
      for (let k = 0; k < beams; k++) {
        const g = p * beams + k;
        // The head's candidates come best first, ties by token id: the same insertions as the scan below makes,
        // minus candidates that could not enter. A forced token or a beam at -Infinity leaves the logits out of
        // it: those rows take the scan.
        if (head && forced === undefined && scores[g]! > -Infinity) {
          for (let j = g * head.k; j < (g + 1) * head.k; j++) {
            const v = Number(head.ids[j]);
            if (!banned.has(v)) offer(head.scores[j]!, k, v);
          }
          continue;
        }
        logSoftmax(logits.subarray(g * vocab, (g + 1) * vocab), scratch);
        applyRules(scratch, processors, ctx);
        const base = scores[g]!;
        // Once K candidates are held, `cut` is the K-th score: a sum not above it cannot enter (fround is monotonic
        // and `cut` is a float32, so testing the double sum first skips the rounding for almost every token).
        let cut = top.length === K ? top[K - 1]![0] : -Infinity;
        let full = top.length === K;
        for (let v = 0; v < vocab; v++) {
          const sum = scratch[v]! + base;
          if (full && !(sum > cut)) continue;
          const sc = f32(sum);
          if (full && !(sc > cut)) continue; // later flat index loses ties
          let i = Math.min(top.length, K - 1);
          top[i] = [sc, k, v];
          while (i > 0 && sc > top[i - 1]![0]) {
            [top[i], top[i - 1]] = [top[i - 1]!, top[i]!];
            i--;
          }
          if (top.length === K) {
            full = true;
            cut = top[K - 1]![0];
          }
        }
      }
      let kept = 0;
      for (let rank = 0; rank < top.length && kept < beams; rank++) {
        const [sc, k, v] = top[rank]!;
        const g = p * beams + k;
        if (v === rules.eosId) {
          if (rank >= beams) continue;
          hyps[r]!.add(sc, [...seqs[g]!, v], curLen);
        } else {
          from.push(g);
          nextTokens.push(v);
          nextScores.push(sc);
          nextSeqs.push([...seqs[g]!, v]);
          kept++;
        }
      }
      // Fewer than `beams` live candidates only when everything else is -inf (forced EOS): pad the row.
      pad(beams - kept, -Infinity);
      if (hyps[r]!.isDone(top[0]![0], curLen)) {
        done[p] = true;
      } else if (curLen >= row.maxNewTokens) {
        // Out of length without enough finished hypotheses: the live beams compete as they are (HF finalize).
        for (let i = from.length - beams; i < from.length; i++) {
          if (nextScores[i]! > -Infinity) hyps[r]!.add(nextScores[i]!, nextSeqs[i]!, nextSeqs[i]!.length);
        }
        done[p] = true;
      }
    });

    const finished = done.filter(Boolean).length;
    if (finished === active.length) break;
    model.reorder(state, from);
    scores = nextScores;
    seqs = nextSeqs;
    tokens = nextTokens;
    if (finished * 4 >= active.length) {
      const groups = active.map((_, p) => p).filter((p) => !done[p]);
      const keep = groups.flatMap((p) => Array.from({ length: beams }, (_, k) => p * beams + k));
      model.select(state, keep);
      active = groups.map((p) => active[p]!);
      done = groups.map(() => false);
      scores = keep.map((g) => scores[g]!);
      seqs = keep.map((g) => seqs[g]!);
      tokens = keep.map((g) => tokens[g]!);
    }
  }
  return hyps.map((h) => h.ranked().slice(0, nBest));
}
