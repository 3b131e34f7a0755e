// Beam search over a batch with Hugging Face BeamSearchScorer semantics (the references were made that way). The
// decoder ranks each step (search-graphs/beam-rank.ts: log_softmax -> rules -> + beam score, each sentence's top 2*beams by
// score desc, flat index asc); this file keeps the books: EOS only accepted from the top `beams` ranks, a hypothesis
// scores sum_logprobs / generated_len^length_penalty (EOS counted), and a sentence is done when it has `beams`
// hypotheses and, unless early_stopping, the worst of them is at least the best running score /
// cur_len^length_penalty.
import type { GenerationRules } from '../model/family.ts';
import { candidatesNeeded, rowContext, rulesAt, type LogitsProcessor } from './logits-processors.ts';
import type { GenerationRow } from './types.ts';
import { DROP_FINISHED_SHARE, type RankedStep, type SearchDecoder } from '../runtime/search-decoder.ts';
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
  // Per state beam: running score, tokens and the cache row it continues; only beam 0 of each row is live at first.
  let scores: number[] = Array.from({ length: total }, (_, i) => (i % beams === 0 ? 0 : -1e9));
  let seqs: number[][] = Array.from({ length: total }, () => []);
  let tokens = new Array<number>(total).fill(rules.decoderStartId);
  let from = Array.from({ length: total }, (_, g) => g);
  const limit = Math.max(...rows.map((r) => r.maxNewTokens));
  const K = 2 * beams;
  const stops = new Set(rules.stopIds);
  // Each beam's best K candidates plus as many as the rules can ban, and a margin, so that the ranking almost never
  // has to score every logit (search-graphs/beam-rank.ts).
  const candidates = K + candidatesNeeded(processors) - 1 + 8;

  /**
   * One step's choice from its ranking: the next beams of every state row, with the hypotheses and finished rows it
   * makes. It changes `hyps` and `done`, not the state.
   */
  const decide = (step: number, ranked: RankedStep) => {
    const curLen = step + 1;
    const next = { from: [] as number[], tokens: [] as number[], scores: [] as number[], seqs: [] as number[][] };
    for (const [p, r] of active.entries()) {
      const pad = (n: number, score: number) => {
        for (let k = 0; k < n; k++) {
          next.from.push(p * beams);
          next.tokens.push(rules.padId);
          next.scores.push(score);
          next.seqs.push([]);
        }
      };
      if (done[p]) {
        pad(beams, 0);
        continue;
      }
      let kept = 0;
      for (let rank = 0; rank < K && kept < beams; rank++) {
        const j = p * K + rank;
        const sc = ranked.values[j]!;
        const g = Number(ranked.from[j]);
        const v = Number(ranked.ids[j]);
        if (stops.has(v)) {
          if (rank >= beams) continue;
          hyps[r]!.add(sc, [...seqs[g]!, v], curLen);
        } else {
          next.from.push(g);
          next.tokens.push(v);
          next.scores.push(sc);
          next.seqs.push([...seqs[g]!, v]);
          kept++;
        }
      }
      // Fewer than `beams` live candidates only when everything else is -inf (forced EOS): pad the row.
      pad(beams - kept, -Infinity);
      if (hyps[r]!.isDone(ranked.values[p * K]!, curLen)) {
        done[p] = true;
      } else if (curLen >= rows[r]!.maxNewTokens) {
        // Out of length without enough finished hypotheses: the live beams compete as they are (HF finalize).
        for (let i = next.from.length - beams; i < next.from.length; i++) {
          if (next.scores[i]! > -Infinity) hyps[r]!.add(next.scores[i]!, next.seqs[i]!, next.seqs[i]!.length);
        }
        done[p] = true;
      }
    }
    return next;
  };

  /** Moves the state on to a step's choice and drops finished rows; false when all are done. */
  const advance = (next: ReturnType<typeof decide>): boolean => {
    const finished = done.filter(Boolean).length;
    if (finished === active.length) return false;
    ({ scores, seqs, tokens, from } = next);
    if (finished * DROP_FINISHED_SHARE >= active.length) {
      const groups = active.map((_, p) => p).filter((p) => !done[p]);
      const keep = groups.flatMap((p) => Array.from({ length: beams }, (_, k) => p * beams + k));
      // The rows kept, each already in the cache row its choice continues.
      decoder.select(state, keep.map((g) => from[g]!));
      active = groups.map((p) => active[p]!);
      done = groups.map(() => false);
      scores = keep.map((g) => scores[g]!);
      seqs = keep.map((g) => seqs[g]!);
      tokens = keep.map((g) => tokens[g]!);
      from = keep.map((_, g) => g);
    }
    return true;
  };

  // Runs of steps, when the decoder has beam search's Loop (without it, its steps plan no run).
  const beamRun = decoder.runs?.beam;

  /**
   * The steps from `step` on that beam-loop.ts can run in one go: the rules only ban, the same ids for every row (as
   * greedy's loopPlan), and no live sentence can finish but by an EOS among its first candidates (which ends the
   * run): each has fewer than `beams` hypotheses and only finite beam scores.
   */
  const loopSteps = (step: number) => {
    if (!beamRun) return undefined;
    const live = active.map((r, p) => ({ r, p })).filter(({ p }) => !done[p]);
    if (live.some(({ r, p }) => hyps[r]!.list.length >= beams || scores.slice(p * beams, (p + 1) * beams).some((s) => !(s > -Infinity)))) return undefined;
    return loopPlan(processors, live.map(({ r }) => rows[r]!), step);
  };

  for (let step = 0; step < limit; step++) {
    const plan = loopSteps(step);
    const doneRows = Array.from({ length: active.length * beams }, (_, g) => done[Math.floor(g / beams)]!);
    const request = { beams, from, scores, done: doneRows, candidates };
    const run = plan && beamRun ? await beamRun(state, tokens, { ...request, ...plan }) : undefined;
    const stepRules = () => active.map((r, p) => (done[p] ? undefined : rulesAt(processors, rowContext(rows[r]!, step))));
    const ranked = run ?? [await decoder.beamStep(state, tokens, { ...request, rules: stepRules() })];
    // Every step of a run but the last continued each sentence's first `beams` candidates in the graph, which is what
    // decide chooses when none is EOS (the run ends after a step where one is).
    const more = ranked.every((stepRanked, s) => advance(decide(step + s, stepRanked)));
    step += ranked.length - 1;
    if (!more) break;
  }
  return hyps.map((h) => h.ranked().slice(0, nBest));
};
