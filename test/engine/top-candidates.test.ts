// Greedy search from the decoder's k best tokens instead of all logits: the TopK the rewrite adds returns exactly
// the k best of the logits, the choice among them equals the arg-max of the processed logits for any rules, and the
// engine translates the same with it on or off (DRAGOMAN_SKIP_PASSES=search-outputs), fp32 and int8, with forced and banned tokens.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { splitMergedDecoder } from '../../src/engine/graph/decoder-split.ts';
import { fuseAttention } from '../../src/engine/graph/attention-fusion.ts';
import {
  BanTokens, ForcedEosAtLimit, ForcedFirstToken, MinNewTokens, applyRules, candidatesNeeded, chooseFromCandidates,
  type LogitsProcessor, type RowContext,
} from '../../src/engine/search/logits-processors.ts';
import { argmax } from '../../src/engine/search/scores.ts';
import { FLOAT, GRAPH, concat, modelBytes, nodeField, tensorInfoField } from '../../src/engine/model/onnx-proto.ts';
import { SEARCH, TOP_IDS, withSearchOutputs } from '../../src/engine/search-graphs/top-candidates.ts';
import { FIXTURES, graphOf, greedyCases, nllbDev, onAndOff, readDev, type MarianDevRow } from './helpers.ts';

/** The k best ids of a row, best first, ties to the lower id (what ONNX TopK promises), computed in JS. */
function topK(row: Float32Array, k: number): number[] {
  return [...row.keys()].sort((a, b) => row[b]! - row[a]! || a - b).slice(0, k);
}

/** A deterministic pseudo-random generator (the same cases every run). */
function generator(seed: number) {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('the TopK rewrite', () => {
  for (const file of ['decoder_model_merged.onnx', 'decoder_model_merged_quantized.onnx']) {
    it(`tiny-marian-en-de/${file}: top_ids are the k best logits of every row, fused or not, k fed per run`, async () => {
      const parts = splitMergedDecoder(readFileSync(join(FIXTURES, 'tiny-marian-en-de/onnx', file)))!;
      const crossKv = await ort.InferenceSession.create(parts.crossKv);
      for (const model of [parts.withPast, fuseAttention(parts.withPast, 4)!.model]) {
        const top = withSearchOutputs(model)!;
        expect(graphOf(top).ops.slice(-7)).toEqual(['TopK', 'Slice', 'ReduceMax', 'Sub', 'Exp', 'ReduceSum', 'Log']);
        expect(graphOf(top).outputs).toEqual([...graphOf(model).outputs, SEARCH.values, TOP_IDS, SEARCH.max, SEARCH.logSum]);
        const session = await ort.InferenceSession.create(top);
        try {
          const rows = 3;
          const L = 4;
          const mask = new ort.Tensor('int64', BigInt64Array.from({ length: rows * L }, (_, i) => (i === 11 ? 0n : 1n)), [rows, L]);
          const hidden = new ort.Tensor('float32', Float32Array.from({ length: rows * L * 128 }, (_, i) => Math.sin(i)), [rows, L, 128]);
          const cross = await crossKv.run({ encoder_hidden_states: hidden, encoder_attention_mask: mask });
          const feeds: Record<string, ort.Tensor> = { encoder_attention_mask: mask, input_ids: new ort.Tensor('int64', BigInt64Array.of(3999n, 17n, 250n), [rows, 1]) };
          for (let i = 0; i < 2; i++) for (const kv of ['key', 'value']) {
            feeds[`past_key_values.${i}.encoder.${kv}`] = cross[`present.${i}.encoder.${kv}`] as ort.Tensor;
            feeds[`past_key_values.${i}.decoder.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [rows, 4, 0, 32]);
          }
          feeds[SEARCH.k] = new ort.Tensor('int64', BigInt64Array.of(5n), [1]);
          feeds[SEARCH.statsLen] = new ort.Tensor('int64', BigInt64Array.of(1n), [1]);
          const out = await session.run(Object.fromEntries(session.inputNames.map((n) => [n, feeds[n]!])));
          const logits = out.logits!.data as Float32Array;
          const ids = out[TOP_IDS]!;
          expect(ids.dims).toEqual([rows, 1, 5]);
          const vocab = logits.length / rows;
          for (let r = 0; r < rows; r++) {
            expect([...(ids.data as BigInt64Array).subarray(r * 5, r * 5 + 5)].map(Number)).toEqual(topK(logits.subarray(r * vocab, (r + 1) * vocab), 5));
          }
        } finally {
          await session.release();
        }
      }
      await crossKv.release();
    });
  }

  it('leaves a model without logits alone, and needs opset 13-17 (ReduceSum\'s axes input, ReduceMax\'s attribute)', async () => {
    const parts = splitMergedDecoder(readFileSync(join(FIXTURES, 'tiny-marian-en-de/onnx/decoder_model_merged.onnx')))!;
    expect(withSearchOutputs(parts.crossKv)).toBeUndefined();
    const identity = (opset: number) => modelBytes(concat([
      nodeField('Identity', ['x'], ['logits'], 'copy'),
      tensorInfoField(GRAPH.input, 'x', FLOAT, ['rows', 1, 'vocab']),
      tensorInfoField(GRAPH.output, 'logits', FLOAT, ['rows', 1, 'vocab']),
    ]), opset);
    expect(withSearchOutputs(identity(12))).toBeUndefined();
    expect(withSearchOutputs(identity(18))).toBeUndefined();
    const session = await ort.InferenceSession.create(withSearchOutputs(identity(13))!);
    try {
      const out = await session.run({
        x: new ort.Tensor('float32', Float32Array.of(0.5, 2, 2, -1, 7, 7, 7, 0), [2, 1, 4]),
        [SEARCH.k]: new ort.Tensor('int64', BigInt64Array.of(2n), [1]),
        [SEARCH.statsLen]: new ort.Tensor('int64', BigInt64Array.of(1n), [1]),
      });
      expect([...(out[TOP_IDS]!.data as BigInt64Array)].map(Number)).toEqual([1, 2, 0, 1]);
    } finally {
      await session.release();
    }
  });
});

describe('choosing from the candidates', () => {
  it('equals the arg-max of the processed logits for every rule set, step and tie', () => {
    const rand = generator(7);
    const vocab = 40;
    const lists: LogitsProcessor[][] = [
      [new BanTokens([1]), new MinNewTokens([0]), new ForcedEosAtLimit(0)],
      [new MinNewTokens([2]), new ForcedFirstToken(), new ForcedEosAtLimit(2)],
      [new BanTokens([5, 6, 7]), new MinNewTokens([0])],
      // A force and then a ban of the forced token: every score -Infinity, the arg-max is 0.
      [new ForcedFirstToken(), new BanTokens([9])],
    ];
    let cases = 0;
    for (const processors of lists) {
      const k = candidatesNeeded(processors);
      for (let n = 0; n < 400; n++) {
        // Coarse values so ties are common; the best tokens are often the banned ones.
        const logits = Float32Array.from({ length: vocab }, () => Math.round(rand() * 6));
        for (const id of [0, 1, 2, 5, 6, 7, 9]) if (rand() < 0.5) logits[id] = 7;
        const ctx: RowContext = { step: Math.floor(rand() * 6), maxNewTokens: 1 + Math.floor(rand() * 6), minNewTokens: Math.floor(rand() * 4), forcedFirstId: rand() < 0.5 ? 9 : undefined };
        const processed = logits.slice();
        applyRules(processed, processors, ctx);
        // The rules one after another, as Hugging Face's processors run: applyRules must leave the same scores.
        const sequential = logits.slice();
        for (const p of processors) {
          const e = p.effect(ctx);
          if (e && 'force' in e) sequential.fill(-Infinity)[e.force] = 0;
          else if (e) for (const id of e.ban) sequential[id] = -Infinity;
        }
        expect(processed).toEqual(sequential);
        const candidates = BigInt64Array.from(topK(logits, k), BigInt);
        expect(chooseFromCandidates(candidates, processors, ctx)).toBe(argmax(processed));
        cases++;
      }
    }
    expect(cases).toBe(1600);
  });

  it('needs one candidate more than the tokens its rules can ban', () => {
    expect(candidatesNeeded([new BanTokens([1, 2]), new MinNewTokens([0]), new ForcedEosAtLimit(0)])).toBe(4);
    expect(() => chooseFromCandidates(BigInt64Array.of(1n, 2n), [new BanTokens([1, 2])], { step: 0, maxNewTokens: 5, minNewTokens: 0, forcedFirstId: undefined }))
      .toThrow(/all 2 candidates banned/);
  });
});

describe('the engine with the search-outputs pass (greedy search)', () => {
  it('translates exactly as from the logits (fp32 and int8, forced first token, EOS banned then forced)', async () => {
    const marian = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 100);
    const nllb = nllbDev(30);
    expect(nllb.length).toBeGreaterThan(0);
    // Exactly 12 new tokens in `fixed`: EOS banned before the 12th (MinNewTokens), forced at it (ForcedEosAtLimit, Marian).
    const out = await onAndOff('search-outputs', { DRAGOMAN_BEAM: '1' }, async (engines) => {
      const { engine, setting } = engines;
      const ok = engine.models().filter((m) => m.status === 'ok');
      expect(ok.length).toBeGreaterThan(1);
      for (const m of ok) {
        if (setting === 'off') expect(m.topCandidates).toBe(0);
        else expect(m.topCandidates).toBeGreaterThanOrEqual(2);
      }
      return greedyCases(engines, marian, nllb);
    }, 12);
    expect(out.fp32on).toEqual(out.fp32off);
    expect(out.int8on).toEqual(out.int8off);
    // Not vacuous: the fp32 greedy output is the reference model's (dev.jsonl), and the fixed-length runs differ from it.
    expect(out.fp32on![0]!.filter((x, i) => x === marian[i]!.greedy).length).toBeGreaterThanOrEqual(99);
    expect(out.fp32on![2]).not.toEqual(out.fp32on![0]!.slice(0, 30));
  });
});
