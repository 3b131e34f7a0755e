// Greedy search over a batch: each row takes the arg-max of its processed logits until EOS or its own limit. With a
// decoder that returns each row's k best tokens (top-candidates.ts), the same token is chosen from those k and the
// logits never leave onnxruntime.
import type { GenerationRules } from './family.ts';
import { applyRules, chooseFromCandidates, type LogitsProcessor, type RowContext } from './logits-processors.ts';
import type { GenerationRow } from './protocol.ts';
import { argmax } from './scores.ts';
import type { Seq2SeqModel } from './seq2seq.ts';

export async function greedySearch(
  model: Seq2SeqModel,
  rules: GenerationRules,
  processors: readonly LogitsProcessor[],
  rows: readonly GenerationRow[],
): Promise<number[][][]> {
  const state = model.start(await model.encode(rows.map((r) => r.ids)));
  const outputs: number[][] = rows.map(() => []);
  // Decoder-state row b holds rows[active[b]]. Finished rows are fed padding until a quarter of the state has
  // finished, then dropped from it (an fp32 row does not depend on its neighbours, so results are unchanged).
  let active = rows.map((_, i) => i);
  let done = rows.map(() => false);
  let tokens = rows.map(() => rules.decoderStartId);
  const limit = Math.max(...rows.map((r) => r.maxNewTokens));
  const k = model.topCandidates;
  for (let step = 0; step < limit; step++) {
    const logits = k > 0 ? undefined : await model.step(state, tokens);
    const candidates = k > 0 ? await model.stepCandidates(state, tokens) : undefined;
    const vocab = logits ? logits.length / active.length : 0;
    active.forEach((r, b) => {
      if (done[b]) {
        tokens[b] = rules.padId;
        return;
      }
      const row = rows[r]!;
      const ctx: RowContext = { step, maxNewTokens: row.maxNewTokens, minNewTokens: row.minNewTokens, forcedFirstId: row.forcedFirstId };
      let next: number;
      if (candidates) next = chooseFromCandidates(candidates.subarray(b * k, (b + 1) * k), processors, ctx);
      else {
        const scores = logits!.subarray(b * vocab, (b + 1) * vocab);
        applyRules(scores, processors, ctx);
        next = argmax(scores);
      }
      outputs[r]!.push(next);
      tokens[b] = next;
      if (next === rules.eosId || outputs[r]!.length >= row.maxNewTokens) done[b] = true;
    });
    const finished = done.filter(Boolean).length;
    if (finished === active.length) break;
    if (finished * 4 >= active.length) {
      const keep = active.map((_, b) => b).filter((b) => !done[b]);
      model.select(state, keep);
      active = keep.map((b) => active[b]!);
      tokens = keep.map((b) => tokens[b]!);
      done = keep.map(() => false);
    }
  }
  return outputs.map((o) => [o]);
}
