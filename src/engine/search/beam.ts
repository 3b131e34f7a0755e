// Beam search over a batch with Hugging Face BeamSearchScorer semantics (the references were made that way):
// log_softmax -> processors -> + beam score; the top 2*beams candidates per row by (score desc, flat index asc);
// EOS only accepted from the top `beams` ranks; a hypothesis scores sum_logprobs / generated_len^length_penalty
// (EOS counted); a row is done when it has `beams` hypotheses and, unless early_stopping, the worst of them is at
// least the best running score / cur_len^length_penalty.
import type { GenerationRules } from '../model/family.ts';
import { applyRules, candidatesNeeded, rowContext, rulesAt, type LogitsProcessor } from './logits-processors.ts';
import type { GenerationRow } from '../pool/protocol.ts';
import { logProb, logSoftmax, type SoftmaxStats } from './scores.ts';
import { DROP_FINISHED_SHARE, LOGITS_ONLY, type SearchDecoder, type StepCandidates } from '../runtime/search-decoder.ts';
import { loopPlan } from './greedy.ts';
import { Hypotheses } from './hypotheses.ts';

/** A beam search over a batch: each row's `nBest` outputs (token ids), best first. */
export type BeamSearch = (
  decoder: SearchDecoder, rules: GenerationRules, processors: readonly LogitsProcessor[], rows: readonly GenerationRow[], beams: number, nBest: number,
) => Promise<number[][][]>;

export const beamSearch: BeamSearch = async (decoder, rules, processors, rows, beams, nBest) => {
  const state = await decoder.begin(rows.map((r) => r.ids), beams);
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
  // Each beam's best K candidates plus as many as the rules can ban, and a margin, so that the boundary check below
  // almost never sends a row to the scan over all logits.
  const m = K + candidatesNeeded(processors) - 1 + 8;
  const want = rules.vocabSize > m ? { k: m, scores: true } : LOGITS_ONLY;
  let lp = new Float32Array(rules.vocabSize || 1);

  /**
   * One step's choice from its candidates (the decoder's m best, or all logits): the next beams of every state row,
   * with the hypotheses and finished rows it makes. It changes `hyps` and `done`, not the state.
   */
  const decide = async (step: number, stepped: StepCandidates) => {
    let logits = stepped.k ? undefined : await stepped.logits();
    const curLen = step + 1;
    const vocab = logits ? logits.length / (active.length * beams) : rules.vocabSize;
    if (lp.length !== vocab) lp = new Float32Array(vocab);
    const stats = (g: number): SoftmaxStats | undefined => (stepped.k ? { max: stepped.max[g]!, logSum: stepped.logSum[g]! } : undefined);
    const from: number[] = [];
    const nextTokens: number[] = [];
    const nextScores: number[] = [];
    const nextSeqs: number[][] = [];

    for (const [p, r] of active.entries()) {
      const pad = (n: number, score: number) => {
        for (let k = 0; k < n; k++) {
          from.push(p * beams);
          nextTokens.push(rules.padId);
          nextScores.push(score);
          nextSeqs.push([]);
        }
      };
      if (done[p]) {
        pad(beams, 0);
        continue;
      }
      const row = rows[r]!;
      const ctx = rowContext(row, step);
      const { forced, banned } = rulesAt(processors, ctx);

      /** Top K over beams x vocab: entries [score, beam, token], by score desc then flat index asc. */
      const collect = (all: Float32Array | undefined): [number, number, number][] | undefined => {
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
        /** The best score a beam's unread logits could reach (its m-th candidate's), per beam read from the decoder. */
        const unread: number[] = [];
        for (let k = 0; k < beams; k++) {
          const g = p * beams + k;
          const base = scores[g]!;
          if (forced !== undefined || !(base > -Infinity)) {
            // A forced token leaves only itself (score 0) and a beam at -Infinity only -Infinity: no logits needed.
            lp.fill(-Infinity);
            applyRules(lp, processors, ctx);
          } else if (!all) {
            // The decoder's m best logits, best first, ties to the lower id: the order the scan below offers them in.
            const st = stats(g)!;
            for (let j = g * m; j < (g + 1) * m; j++) {
              const v = Number(stepped.ids[j]);
              if (!banned.has(v)) offer(Math.fround(logProb(stepped.values[j]!, st) + base), k, v);
            }
            unread.push(Math.fround(logProb(stepped.values[(g + 1) * m - 1]!, st) + base));
            continue;
          } else {
            logSoftmax(all.subarray(g * vocab, (g + 1) * vocab), lp, stats(g));
            applyRules(lp, processors, ctx);
          }
          // Once K candidates are held, `cut` is the K-th score: a sum not above it cannot enter (fround is monotonic
          // and `cut` is a float32, so testing the double sum first skips the rounding for almost every token).
          let cut = top.length === K ? top[K - 1]![0] : -Infinity;
          let full = top.length === K;
          for (let v = 0; v < vocab; v++) {
            const sum = lp[v]! + base;
            if (full && !(sum > cut)) continue;
            const sc = Math.fround(sum);
            if (full && !(sc > cut)) continue; // later flat index loses ties
            offer(sc, k, v);
            if (top.length === K) {
              full = true;
              cut = top[K - 1]![0];
            }
          }
        }
        // log_softmax is monotonic, so a beam's unread logits score at most its m-th: exact unless one could tie or
        // beat the K-th candidate kept (then the scan over all logits decides).
        return top.length === K && unread.every((u) => u < top[K - 1]![0]) ? top : undefined;
      };
      let top = collect(logits);
      if (!top) {
        logits ??= await stepped.logits();
        top = collect(logits)!;
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
    }
    return { from, nextTokens, nextScores, nextSeqs };
  };

  /** Moves the state on to a step's choice (the cache reordered unless the Loop did) and drops finished rows; false when all are done. */
  const advance = (next: Awaited<ReturnType<typeof decide>>, reorder: boolean): boolean => {
    const finished = done.filter(Boolean).length;
    if (finished === active.length) return false;
    if (reorder) decoder.reorder(state, next.from);
    scores = next.nextScores;
    seqs = next.nextSeqs;
    tokens = next.nextTokens;
    if (finished * DROP_FINISHED_SHARE >= active.length) {
      const groups = active.map((_, p) => p).filter((p) => !done[p]);
      const keep = groups.flatMap((p) => Array.from({ length: beams }, (_, k) => p * beams + k));
      decoder.select(state, keep);
      active = groups.map((p) => active[p]!);
      done = groups.map(() => false);
      scores = keep.map((g) => scores[g]!);
      seqs = keep.map((g) => seqs[g]!);
      tokens = keep.map((g) => tokens[g]!);
    }
    return true;
  };

  /** A step the graph chose and applied: each beam's row followed (`from`) and token, its score from the candidates. */
  const follow = (stepped: StepCandidates, from: readonly number[], ids: readonly number[]) => {
    const nextScores: number[] = [];
    const nextSeqs: number[][] = [];
    from.forEach((f, g) => {
      if (done[Math.floor(g / beams)]) {
        nextScores.push(0);
        nextSeqs.push([]);
        return;
      }
      let j = f * m;
      while (j < (f + 1) * m - 1 && Number(stepped.ids[j]) !== ids[g]) j++;
      nextScores.push(Math.fround(logProb(stepped.values[j]!, { max: stepped.max[f]!, logSum: stepped.logSum[f]! }) + scores[f]!));
      nextSeqs.push([...seqs[f]!, ids[g]!]);
    });
    scores = nextScores;
    seqs = nextSeqs;
    tokens = ids.map((id, g) => (done[Math.floor(g / beams)] ? rules.padId : id));
  };

  // Whether the decoder takes runs: one that declines a run declines them all, so its steps plan none.
  let runs = true;

  /**
   * The steps from `step` on that beam-loop.ts can run in one go: the rules only ban, the same ids for every row (as
   * greedy's loopPlan), and no live sentence can finish but by an EOS among its first candidates (which ends the
   * run): each has fewer than `beams` hypotheses and only finite beam scores.
   */
  const loopSteps = (step: number) => {
    if (want.k === 0 || !runs) return undefined;
    const live = active.map((r, p) => ({ r, p })).filter(({ p }) => !done[p]);
    if (live.some(({ r, p }) => hyps[r]!.list.length >= beams || scores.slice(p * beams, (p + 1) * beams).some((s) => !(s > -Infinity)))) return undefined;
    return loopPlan(processors, live.map(({ r }) => rows[r]!), step);
  };

  for (let step = 0; step < limit; step++) {
    const plan = loopSteps(step);
    const doneRows = () => Array.from({ length: active.length * beams }, (_, g) => done[Math.floor(g / beams)]!);
    const run = plan && await decoder.beamRun(state, tokens, { ...plan, done: doneRows(), scores, m, beams });
    if (plan && !run) runs = false;
    if (run) {
      const ran = run.stepped.length;
      // Every step but the last was chosen and applied in the graph (beam-loop.ts): only the beams' tokens, scores and
      // sequences follow here. The run ends after the step beam search must decide below: a hypothesis finishing, a
      // rule forcing a token, or a candidate the decoder did not return that could tie (the boundary check).
      for (let s = 0; s < ran - 1; s++) follow(run.stepped[s]!, run.chosenFrom[s]!, run.chosenIds[s]!);
      step += ran - 1;
      if (!advance(await decide(step, run.stepped[ran - 1]!), true)) break;
      continue;
    }
    if (!advance(await decide(step, await decoder.step(state, tokens, want)), true)) break;
  }
  return hyps.map((h) => h.ranked().slice(0, nBest));
};
