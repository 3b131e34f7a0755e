// Greedy search in an ONNX Loop (greedy-loop.ts): the loop model chooses, step after step, the
// tokens the step model's candidates give one run at a time, and stops when every row is done; the engine plans its
// runs around the rules (forced tokens, the end of a minimum length) and translates as without it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { fuseAttention } from '../../src/engine/graph/attention-fusion.ts';
import { splitMergedDecoder } from '../../src/engine/graph/decoder-split.ts';
import { loopPlan } from '../../src/engine/search/greedy.ts';
import { greedyLoopFits, withGreedyLoop } from '../../src/engine/search-graphs/greedy-loop.ts';
import { LOOP } from '../../src/engine/search-graphs/loop-io.ts';
import { BanTokens, ForcedEosAtLimit, ForcedFirstToken, MinNewTokens } from '../../src/engine/search/logits-processors.ts';
import type { GenerationRow } from '../../src/engine/search/types.ts';
import { SEARCH, TOP_IDS, withSearchOutputs } from '../../src/engine/search-graphs/top-candidates.ts';
import { FIXTURES, greedyCases, nllbDev, onAndOff, readDev, withSparseFiles, type MarianDevRow } from './helpers.ts';

const PAD = 3999;
const EOS = 0;

describe('the greedy loop model', () => {
  for (const file of ['decoder_model_merged.onnx', 'decoder_model_merged_quantized.onnx']) {
    it(`tiny-marian-en-de/${file}: chooses what the step model's candidates choose, one run at a time, and stops where greedy search drops finished rows`, async () => {
      const parts = splitMergedDecoder(readFileSync(join(FIXTURES, 'tiny-marian-en-de/onnx', file)))!;
      const step = withSearchOutputs(fuseAttention(parts.withPast, 4)!.model)!;
      const looped = withGreedyLoop(step, PAD, EOS)!;
      expect(looped).toBeDefined();
      const [crossKv, stepSession, loopSession] = await Promise.all([parts.crossKv, step, looped].map((m) => ort.InferenceSession.create(m)));
      try {
        // Four rows of real source sentences through the real encoder would need the tokenizer; the encoder states
        // here are fixed numbers, the last row padded at its end: the choices differ per row all the same.
        const rows = 7;
        const L = 5;
        const mask = new ort.Tensor('int64', BigInt64Array.from({ length: rows * L }, (_, i) => (i >= 33 ? 0n : 1n)), [rows, L]);
        const hidden = new ort.Tensor('float32', Float32Array.from({ length: rows * L * 128 }, (_, i) => Math.sin(i * 0.37) * 2), [rows, L, 128]);
        const cross = await crossKv!.run({ encoder_hidden_states: hidden });
        const outer: Record<string, ort.Tensor> = { encoder_attention_mask: mask };
        const emptyPast = (prefix: string) => {
          const past: Record<string, ort.Tensor> = {};
          for (let i = 0; i < 2; i++) for (const kv of ['key', 'value']) {
            outer[`past_key_values.${i}.encoder.${kv}`] = cross[`present.${i}.encoder.${kv}`] as ort.Tensor;
            past[`${prefix}past_key_values.${i}.decoder.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [rows, 4, 0, 32]);
          }
          return past;
        };
        const k = 3;
        const search = {
          [SEARCH.k]: new ort.Tensor('int64', BigInt64Array.of(BigInt(k)), [1]),
          [SEARCH.statsLen]: new ort.Tensor('int64', BigInt64Array.of(1n), [1]),
        };
        // One step a run, as greedy.ts chooses from candidates: the best one that is not padding; a done row fed padding.
        let past = emptyPast('');
        let tokens = Array<number>(rows).fill(PAD);
        const done = Array<boolean>(rows).fill(false);
        const expected: number[][] = [];
        for (let s = 0; s < 40 && done.filter(Boolean).length * 4 < rows; s++) {
          const out = await stepSession!.run({ ...outer, ...past, ...search, input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [rows, 1]) });
          const ids = out[TOP_IDS]!.data as BigInt64Array;
          tokens = tokens.map((_, r) => {
            if (done[r]) return PAD;
            const best = [...ids.subarray(r * k, (r + 1) * k)].map(Number).find((id) => id !== PAD)!;
            if (best === EOS) done[r] = true;
            return best;
          });
          expected.push(tokens);
          past = {};
          for (let i = 0; i < 2; i++) for (const kv of ['key', 'value']) past[`past_key_values.${i}.decoder.${kv}`] = out[`present.${i}.decoder.${kv}`] as ort.Tensor;
        }
        // A quarter of the rows done (greedy.ts drops them there) after several steps of different tokens.
        expect(done.filter(Boolean).length * 4).toBeGreaterThanOrEqual(rows);
        expect(expected.length).toBeGreaterThanOrEqual(3);
        expect(new Set(expected.flat()).size).toBeGreaterThan(5);
        const vocab = 4000;
        const ban = new Float32Array(vocab);
        ban[PAD] = -Infinity;
        const out = await loopSession!.run({
          ...outer, ...emptyPast(LOOP.pastPrefix), ...search,
          [LOOP.steps]: new ort.Tensor('int64', BigInt64Array.of(40n), []),
          [LOOP.ids]: new ort.Tensor('int64', new BigInt64Array(rows).fill(BigInt(PAD)), [rows, 1]),
          [LOOP.done]: new ort.Tensor('bool', new Uint8Array(rows), [rows, 1]),
          [LOOP.ban]: new ort.Tensor('float32', ban, [vocab]),
          [LOOP.logitsLen]: new ort.Tensor('int64', BigInt64Array.of(0n), [1]),
        });
        const chosen = out[LOOP.chosen]!;
        // The run ends at that step, not at the 40 steps it was allowed.
        expect(chosen.dims).toEqual([expected.length, rows, 1]);
        const data = [...(chosen.data as BigInt64Array)].map(Number);
        expect(expected.map((_, s) => data.slice(s * rows, (s + 1) * rows))).toEqual(expected);
        expect(out[`${LOOP.presentPrefix}present.0.decoder.key`]!.dims).toEqual([rows, 4, expected.length, 32]);
      } finally {
        await Promise.all([crossKv, stepSession, loopSession].map((s) => s?.release()));
      }
    });
  }

  it('leaves a step model without the search outputs alone', () => {
    const parts = splitMergedDecoder(readFileSync(join(FIXTURES, 'tiny-marian-en-de/onnx/decoder_model_merged.onnx')))!;
    expect(withGreedyLoop(parts.withPast, PAD, EOS)).toBeUndefined();
  });
});

describe('loopPlan', () => {
  const row = (maxNewTokens: number, minNewTokens = 0, forcedFirstId?: number): GenerationRow => ({ ids: [1], maxNewTokens, minNewTokens, forcedFirstId });
  const marian = [new BanTokens([PAD]), new MinNewTokens([EOS]), new ForcedEosAtLimit(EOS)];
  const nllb = [new MinNewTokens([2]), new ForcedFirstToken(), new ForcedEosAtLimit(2)];

  it('runs the steps where every row bans the same tokens, and leaves forced tokens and rule changes to single steps', () => {
    // Marian, no minimum: pad banned throughout; at most LOOP_STEPS (16) a run; the forced EOS of the limit is a single step.
    expect(loopPlan(marian, [row(100), row(100)], 0)).toEqual({ steps: 16, banned: [PAD] });
    expect(loopPlan(marian, [row(100), row(20)], 10)).toEqual({ steps: 9, banned: [PAD] });
    expect(loopPlan(marian, [row(100), row(20)], 18)).toBeUndefined();
    // A minimum length bans EOS too until it ends: the run stops there, the next one bans pad alone.
    expect(loopPlan(marian, [row(100, 12)], 0)).toEqual({ steps: 12, banned: [EOS, PAD] });
    expect(loopPlan(marian, [row(100, 12)], 12)).toEqual({ steps: 16, banned: [PAD] });
    // Rows whose minimum lengths end at different steps ban different tokens from the first end on.
    expect(loopPlan(marian, [row(100, 5), row(100, 9)], 0)).toEqual({ steps: 5, banned: [EOS, PAD] });
    expect(loopPlan(marian, [row(100, 5), row(100, 9)], 5)).toBeUndefined();
    // NLLB: the language token is forced at step 0 (single step), the loop from step 1.
    expect(loopPlan(nllb, [row(50, 0, 7)], 0)).toBeUndefined();
    expect(loopPlan(nllb, [row(50, 0, 7)], 1)).toEqual({ steps: 16, banned: [] });
    expect(loopPlan(marian, [], 0)).toBeUndefined();
  });
});

describe('the engine with the greedy-loop pass', () => {
  it('translates exactly as without it (fp32 and int8, batches and single sentences, forced first token, EOS banned then forced)', async () => {
    const marian = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 100);
    const nllb = nllbDev(30);
    expect(nllb.length).toBeGreaterThan(0);
    // `fixed`: exactly 12 new tokens (EOS banned before the 12th, forced at it for Marian).
    const out = await onAndOff('greedy-loop', { DRAGOMAN_BEAM: '1' }, async (engines) => {
      const { engine, setting } = engines;
      const ok = engine.models().filter((m) => m.status === 'ok');
      expect(ok.length).toBeGreaterThan(1);
      for (const m of ok) expect(m.greedyLoop).toBe(setting === 'on');
      const alone: string[] = [];
      for (const d of marian.slice(0, 40)) alone.push((await engine.translate([d.src], 'eng_Latn', 'deu_Latn')).translations[0]!);
      return [...await greedyCases(engines, marian, nllb), alone];
    }, 12);
    expect(out.fp32on).toEqual(out.fp32off);
    // int8 too: a row's activations are quantized with its batch's, and a run ends where single steps would drop
    // finished rows, so every step runs on the same rows either way.
    expect(out.int8on).toEqual(out.int8off);
    // Not vacuous: the fp32 output is the reference model's (dev.jsonl); the fixed-length runs differ from it.
    expect(out.fp32on![0]!.filter((x, i) => x === marian[i]!.greedy).length).toBeGreaterThanOrEqual(99);
    expect(out.fp32on![2]).not.toEqual(out.fp32on![0]!.slice(0, 30));
  });
});

describe('which decoders get greedy search\'s Loop (greedyLoopFits)', () => {
  it('an int8 (*_quantized.onnx) file up to 256 MB (OPUS-MT base and big), not NLLB-200-600M\'s 466 MB; fp32 up to 1 GB', () => {
    withSparseFiles((file) => {
      expect(greedyLoopFits(file('decoder_model_merged_quantized.onnx', 163))).toBe(true);
      expect(greedyLoopFits(file('decoder_model_merged_quantized.onnx', 256))).toBe(true);
      expect(greedyLoopFits(file('decoder_model_merged_quantized.onnx', 445))).toBe(false);
      expect(greedyLoopFits(file('decoder_model_merged.onnx', 221))).toBe(true);
      expect(greedyLoopFits(file('decoder_model_merged.onnx', 1025))).toBe(false);
    });
  });
});
