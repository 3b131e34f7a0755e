// Greedy search over a batch: each row takes the arg-max of its processed logits until EOS or its own limit. It asks
// the decoder for each row's k best tokens (enough to outnumber every ban) and chooses among them, or scans the
// logits when the decoder answers with those; the steps where every row's rules only ban the same tokens it asks
// for as one run, which a decoder with greedy-loop.ts's Loop takes many to an onnxruntime run, chosen the same way.
import type { GenerationRules } from '../model/family.ts';
import { applyRules, candidatesNeeded, chooseFromCandidates, rowContext, rulesAt, type LogitsProcessor } from './logits-processors.ts';
import type { GenerationRow } from './types.ts';
import { argmax } from './scores.ts';
import { DROP_FINISHED_SHARE, type CandidateRequest, type SearchDecoder } from '../runtime/search-decoder.ts';

export async function greedySearch(
  decoder: SearchDecoder,
  rules: GenerationRules,
  processors: readonly LogitsProcessor[],
  rows: readonly GenerationRow[],
): Promise<number[][][]> {
  const state = await decoder.begin(rows.map((r) => r.ids));
  const outputs: number[][] = rows.map(() => []);
  // Decoder-state row b holds rows[active[b]]. Finished rows are fed padding until a quarter of the state has
  // finished, then dropped from it (an fp32 row does not depend on its neighbours, so results are unchanged).
  let active = rows.map((_, i) => i);
  let done = rows.map(() => false);
  let tokens = rows.map(() => rules.decoderStartId);
  const limit = Math.max(...rows.map((r) => r.maxNewTokens));
  const want: CandidateRequest = { k: candidatesNeeded(processors) };
  const stops = new Set(rules.stopIds);
  /** Row rows[r], at state row b, took `next`: done at EOS or at its own limit. */
  const take = (r: number, b: number, next: number) => {
    outputs[r]!.push(next);
    if (stops.has(next) || outputs[r]!.length >= rows[r]!.maxNewTokens) done[b] = true;
  };
  // Runs of steps, when the decoder has greedy search's Loop (NLLB-600M's has none: its steps plan no run).
  const run = decoder.runs?.greedy;
  for (let step = 0; step < limit; step++) {
    const plan = run ? loopPlan(processors, active.filter((_, b) => !done[b]).map((r) => rows[r]!), step) : undefined;
    const chosen = plan && run ? await run(state, tokens, { ...plan, done }) : undefined;
    if (chosen) {
      for (const stepTokens of chosen) {
        active.forEach((r, b) => {
          if (!done[b]) take(r, b, stepTokens[b]!);
        });
      }
      // What the Loop would feed next, as a single step would: a row done before the run's last step padding, one
      // that chose EOS at it that EOS (an int8 row is quantized with its neighbours, so a run may end anywhere).
      tokens = [...chosen[chosen.length - 1]!];
      step += chosen.length - 1;
    } else {
      await singleStep(step);
    }
    const finished = done.filter(Boolean).length;
    if (finished === active.length) break;
    if (finished * DROP_FINISHED_SHARE >= active.length) {
      const keep = active.map((_, b) => b).filter((b) => !done[b]);
      decoder.select(state, keep);
      active = keep.map((b) => active[b]!);
      tokens = keep.map((b) => tokens[b]!);
      done = keep.map(() => false);
    }
  }
  return outputs.map((o) => [o]);

  async function singleStep(step: number): Promise<void> {
    const stepped = await decoder.step(state, tokens, want);
    const { k } = stepped;
    const logits = k > 0 ? undefined : await stepped.logits();
    const vocab = logits ? logits.length / active.length : 0;
    active.forEach((r, b) => {
      if (done[b]) {
        tokens[b] = rules.padId;
        return;
      }
      const row = rows[r]!;
      const ctx = rowContext(row, step);
      let next: number;
      if (!logits) next = chooseFromCandidates(stepped.ids.subarray(b * k, (b + 1) * k), processors, ctx);
      else {
        const scores = logits!.subarray(b * vocab, (b + 1) * vocab);
        applyRules(scores, processors, ctx);
        next = argmax(scores);
      }
      tokens[b] = next;
      take(r, b, next);
    });
  }
}

/** Most steps one Loop run may take (the run also ends where finished rows would be dropped: greedy-loop.ts). */
export const LOOP_STEPS = 16;

/**
 * The steps from `step` on that greedy-loop.ts can run in one go for these rows (the ones not done): at least two,
 * none forcing a token, every row banning the same tokens at every one of them, none past a row's own limit. The
 * first step that breaks this (NLLB's forced language token, the forced EOS at a row's limit, the end of a minimum
 * length) is left to a single step.
 */
export function loopPlan(
  processors: readonly LogitsProcessor[], rows: readonly GenerationRow[], step: number,
): { steps: number; banned: number[] } | undefined {
  if (rows.length === 0) return undefined;
  const room = Math.min(LOOP_STEPS, ...rows.map((r) => r.maxNewTokens - step));
  let key: string | undefined;
  let banned: number[] = [];
  let steps = 0;
  for (; steps < room; steps++) {
    let stepKey: string | undefined;
    for (const row of rows) {
      const { forced, banned: ids } = rulesAt(processors, rowContext(row, step + steps));
      if (forced !== undefined) return steps >= 2 ? { steps, banned } : undefined;
      const rowKey = [...ids].sort((a, b) => a - b).join(',');
      if (stepKey === undefined) {
        stepKey = rowKey;
        if (key === undefined) banned = [...ids].sort((a, b) => a - b);
      } else if (rowKey !== stepKey) return steps >= 2 ? { steps, banned } : undefined;
    }
    if (key === undefined) key = stepKey;
    else if (stepKey !== key) break;
  }
  return steps >= 2 ? { steps, banned } : undefined;
}
