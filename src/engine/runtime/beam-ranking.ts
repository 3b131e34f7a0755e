// Beam search's ranking (search-graphs/beam-rank.ts) as the runtime feeds it: the rules as tensors, and the ranking model's
// own session for a step of a decoder without beam search's Loop (the Loop ranks its steps itself).
import ort from 'onnxruntime-node';
import { BEAM_RANK, beamRankModel } from '../search-graphs/beam-rank.ts';
import { ruleTensors, type RuleTensors } from '../search-graphs/loop-io.ts';
import type { BeamStepRequest, RankedStep, StepRules } from './search-decoder.ts';

export class BeamRanking {
  private session: Promise<ort.InferenceSession> | undefined;
  /** Rules every row shares (nothing forced, the same bans; a forced first token), made once per kind. */
  private readonly shared = new Map<string, RuleTensors>();

  /**
   * The rules of each sentence's rows as beam-rank.ts reads them: one row for all when every live sentence has the
   * same rules (what almost every step has), else a row each.
   */
  tensors(rules: readonly (StepRules | undefined)[], beams: number, vocab: number): RuleTensors {
    const keyOf = (r: StepRules) => `${r.forced ?? ''}:${[...r.banned].sort((a, b) => a - b).join(',')}`;
    const live = rules.filter((r): r is StepRules => r !== undefined);
    const keys = new Set(live.map(keyOf));
    if (keys.size <= 1) {
      const rule = live[0] ?? { forced: undefined, banned: new Set<number>() };
      const key = `${vocab}/${keyOf(rule)}`;
      let tensors = this.shared.get(key);
      if (!tensors) {
        tensors = ruleTensors([rule], vocab);
        this.shared.set(key, tensors);
      }
      return tensors;
    }
    return ruleTensors(rules.flatMap((r) => Array.from({ length: beams }, () => r)), vocab);
  }

  /** Ranks one step's logits [rows, 1, vocab] with the ranking model. */
  async rank(logits: ort.Tensor, step: BeamStepRequest): Promise<RankedStep> {
    this.session ??= ort.InferenceSession.create(beamRankModel(), { intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 3 });
    const rows = step.scores.length;
    const vocab = logits.dims[2]!;
    const rules = this.tensors(step.rules, step.beams, vocab);
    const out = await (await this.session).run({
      [BEAM_RANK.logits]: logits,
      [BEAM_RANK.k]: new ort.Tensor('int64', BigInt64Array.of(BigInt(Math.min(step.candidates, vocab))), [1]),
      [BEAM_RANK.scores]: new ort.Tensor('float32', Float32Array.from(step.scores), [rows]),
      [BEAM_RANK.mask]: rules.mask,
      [BEAM_RANK.forced]: rules.forced,
      [BEAM_RANK.done]: new ort.Tensor('bool', Uint8Array.from(step.done, Number), [rows, 1]),
      [BEAM_RANK.beams]: new ort.Tensor('int64', BigInt64Array.of(BigInt(step.beams)), [1]),
    });
    return {
      values: out[BEAM_RANK.values]!.data as Float32Array,
      from: out[BEAM_RANK.from]!.data as BigInt64Array,
      ids: out[BEAM_RANK.ids]!.data as BigInt64Array,
    };
  }

  async release(): Promise<void> {
    await (await this.session)?.release();
  }
}
