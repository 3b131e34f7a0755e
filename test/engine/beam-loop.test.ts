// Beam search in an ONNX Loop (beam-loop.ts): the graph reorders the cache, ranks each step with beam-rank.ts's nodes
// and continues the first beams step after step; beam.ts keeps the books and decides the step where a hypothesis
// finishes. So the engine must translate exactly as without it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { beamLoopFits, withBeamLoop, withSearchLoops } from '../../src/engine/search-graphs/beam-loop.ts';
import { withGreedyLoop } from '../../src/engine/search-graphs/greedy-loop.ts';
import { BEAM_LOOP, idleLoopInput, LOOP, twoBeams } from '../../src/engine/search-graphs/loop-io.ts';
import { fuseAttention } from '../../src/engine/graph/attention-fusion.ts';
import { splitMergedDecoder } from '../../src/engine/graph/decoder-split.ts';
import { SEARCH, withSearchOutputs } from '../../src/engine/search-graphs/top-candidates.ts';
import { BEAM_RANK, beamRankModel } from '../../src/engine/search-graphs/beam-rank.ts';
import { gatherRows } from '../../src/engine/runtime/kv-cache.ts';
import { FIXTURES, nllbDev, onAndOff, readDev, withSparseFiles, type MarianDevRow } from './helpers.ts';

describe('the beam loop model', () => {
  it('wraps only a step model with the search outputs', () => {
    const parts = splitMergedDecoder(readFileSync(join(FIXTURES, 'tiny-marian-en-de/onnx/decoder_model_merged.onnx')))!;
    const fused = fuseAttention(parts.withPast, 4)!.model;
    expect(withBeamLoop(fused, 3999, 0)).toBeUndefined();
    expect(withBeamLoop(withSearchOutputs(fused)!, 3999, 0)).toBeInstanceOf(Uint8Array);
  });

  it('ranks every step as beam-rank.ts\'s model ranks the step model\'s logits, and stops after a step that keeps an EOS', async () => {
    const parts = splitMergedDecoder(readFileSync(join(FIXTURES, 'tiny-marian-en-de/onnx/decoder_model_merged.onnx')))!;
    const step = withSearchOutputs(fuseAttention(parts.withPast, 4)!.model)!;
    const [crossKv, stepSession, rankSession] = await Promise.all([parts.crossKv, step, beamRankModel()].map((m) => ort.InferenceSession.create(m)));
    try {
      // One sentence, 2 beams, only the first live at the first step.
      const rows = 2;
      const L = 4;
      const mask = new ort.Tensor('int64', new BigInt64Array(rows * L).fill(1n), [rows, L]);
      const hidden = new ort.Tensor('float32', Float32Array.from({ length: rows * L * 128 }, (_, i) => Math.sin((i % (L * 128)) * 0.37) * 2), [rows, L, 128]);
      const cross = await crossKv!.run({ encoder_hidden_states: hidden });
      const feeds: Record<string, ort.Tensor> = { encoder_attention_mask: mask };
      const loopFeeds: Record<string, ort.Tensor> = { encoder_attention_mask: mask };
      for (let i = 0; i < 2; i++) for (const kv of ['key', 'value']) {
        feeds[`past_key_values.${i}.encoder.${kv}`] = loopFeeds[`past_key_values.${i}.encoder.${kv}`] = cross[`present.${i}.encoder.${kv}`] as ort.Tensor;
        feeds[`past_key_values.${i}.decoder.${kv}`] = loopFeeds[`${BEAM_LOOP.prefix}past_key_values.${i}.decoder.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [rows, 4, 0, 32]);
      }
      const search = {
        [SEARCH.k]: new ort.Tensor('int64', BigInt64Array.of(12n), [1]),
        [SEARCH.statsLen]: new ort.Tensor('int64', BigInt64Array.of(2n ** 40n), [1]),
      };
      const vocab = 4000;
      const eos = 0;
      const first = new ort.Tensor('int64', BigInt64Array.of(3999n, 3999n), [rows, 1]);
      const own = twoBeams(30, first, vocab, 3999);
      // The Loop with EOS allowed (the model emits it within 30 steps), its session with the EOS id it stops on.
      const loopSession = await ort.InferenceSession.create(withBeamLoop(step, 3999, eos)!);
      try {
        const out = await loopSession.run({ ...loopFeeds, ...search, ...own });
        const ran = out[BEAM_LOOP.values]!.dims[0]!;
        expect(ran).toBeGreaterThan(1);
        expect(ran).toBeLessThan(30);
        // The same steps one by one: the step model, beam-rank.ts's model, the first two candidates continued.
        let ids = first;
        let from = [0, 1];
        let scores = Float32Array.of(0, -1e9);
        for (let s = 0; s < ran; s++) {
          for (let i = 0; i < 2; i++) for (const kv of ['key', 'value']) {
            const past = feeds[`past_key_values.${i}.decoder.${kv}`]!;
            feeds[`past_key_values.${i}.decoder.${kv}`] = gatherRows(past, from);
          }
          const stepOut = await stepSession!.run({ ...feeds, ...search, input_ids: ids });
          for (let i = 0; i < 2; i++) for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.decoder.${kv}`] = stepOut[`present.${i}.decoder.${kv}`] as ort.Tensor;
          const want = await rankSession!.run({
            [BEAM_RANK.logits]: stepOut.logits!, [BEAM_RANK.scores]: new ort.Tensor('float32', scores, [2]),
            [BEAM_RANK.mask]: own[BEAM_LOOP.mask]!, [BEAM_RANK.forced]: own[BEAM_LOOP.forced]!, [BEAM_RANK.beams]: own[BEAM_LOOP.beams]!,
            [BEAM_RANK.k]: search[SEARCH.k]!, [BEAM_RANK.done]: own[BEAM_LOOP.done]!,
          });
          const at = (name: string) => Array.from((out[name]!.data as ArrayLike<number | bigint>)).slice(s * 4, (s + 1) * 4);
          expect(at(BEAM_LOOP.values)).toEqual(Array.from(want[BEAM_RANK.values]!.data as Float32Array));
          expect(at(BEAM_LOOP.rankedFrom)).toEqual(Array.from(want[BEAM_RANK.from]!.data as BigInt64Array));
          expect(at(BEAM_LOOP.rankedIds)).toEqual(Array.from(want[BEAM_RANK.ids]!.data as BigInt64Array));
          const chosen = (want[BEAM_RANK.ids]!.data as BigInt64Array).slice(0, 2);
          // Every step but the last keeps no EOS among the first two; the last does.
          expect(chosen.includes(BigInt(eos))).toBe(s === ran - 1);
          ids = new ort.Tensor('int64', chosen, [2, 1]);
          from = Array.from((want[BEAM_RANK.from]!.data as BigInt64Array).slice(0, 2), Number);
          scores = (want[BEAM_RANK.values]!.data as Float32Array).slice(0, 2);
        }
      } finally {
        await loopSession.release();
      }
    } finally {
      await Promise.all([crossKv, stepSession, rankSession].map((s) => s?.release()));
    }
  });
});

describe('greedy and beam search\'s Loops in one model (withSearchLoops)', () => {
  it('holds the step\'s weights once and each Loop answers as it does alone, the other fed idle inputs', async () => {
    const parts = splitMergedDecoder(readFileSync(join(FIXTURES, 'tiny-marian-en-de/onnx/decoder_model_merged.onnx')))!;
    const step = withSearchOutputs(fuseAttention(parts.withPast, 4)!.model)!;
    const greedy = withGreedyLoop(step, 3999, 0)!;
    const both = withSearchLoops(step, 3999, 0)!;
    // A second copy of the weights would make the model about twice the step model.
    expect(both.length - greedy.length).toBeLessThan(step.length * 0.1);
    const dims = { layers: 2, heads: 4, headDim: 32 };
    const [crossKv, greedySession, beamSession, bothSession] = await Promise.all(
      [parts.crossKv, greedy, withBeamLoop(step, 3999, 0)!, both].map((m) => ort.InferenceSession.create(m)));
    try {
      const rows = 2;
      const L = 4;
      const mask = new ort.Tensor('int64', new BigInt64Array(rows * L).fill(1n), [rows, L]);
      const hidden = new ort.Tensor('float32', Float32Array.from({ length: rows * L * 128 }, (_, i) => Math.cos(i * 0.21) * 2), [rows, L, 128]);
      const cross = await crossKv!.run({ encoder_hidden_states: hidden });
      const shared: Record<string, ort.Tensor> = {
        encoder_attention_mask: mask,
        [SEARCH.k]: new ort.Tensor('int64', BigInt64Array.of(12n), [1]),
        [SEARCH.statsLen]: new ort.Tensor('int64', BigInt64Array.of(2n ** 40n), [1]),
      };
      for (let i = 0; i < 2; i++) for (const kv of ['key', 'value']) {
        shared[`past_key_values.${i}.encoder.${kv}`] = cross[`present.${i}.encoder.${kv}`] as ort.Tensor;
        for (const prefix of [LOOP.pastPrefix, BEAM_LOOP.prefix]) {
          shared[`${prefix}past_key_values.${i}.decoder.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [rows, 4, 0, 32]);
        }
      }
      const vocab = 4000;
      const ids = new ort.Tensor('int64', BigInt64Array.of(3999n, 3999n), [rows, 1]);
      const greedyOwn = {
        [LOOP.steps]: new ort.Tensor('int64', BigInt64Array.of(5n), []),
        [LOOP.ids]: ids,
        [LOOP.done]: new ort.Tensor('bool', new Uint8Array(rows), [rows, 1]),
        [LOOP.ban]: new ort.Tensor('float32', new Float32Array(vocab), [vocab]),
        [LOOP.logitsLen]: new ort.Tensor('int64', BigInt64Array.of(0n), [1]),
      };
      const beamOwn = twoBeams(5, ids, vocab, 0);
      // A session's feeds: the given ones it declares, idleLoopInput for the rest (what seq2seq.ts feeds).
      const feeds = (session: ort.InferenceSession, given: Record<string, ort.Tensor>) =>
        Object.fromEntries(session.inputNames.map((n) => [n, given[n] ?? idleLoopInput(n, dims)!]));
      const greedyFetch = [LOOP.chosen, LOOP.topIds, `${LOOP.presentPrefix}present.1.decoder.value`];
      const alone = await greedySession!.run(feeds(greedySession!, { ...shared, ...greedyOwn }), greedyFetch);
      const inBoth = await bothSession!.run(feeds(bothSession!, { ...shared, ...greedyOwn }), greedyFetch);
      expect(alone[LOOP.chosen]!.dims[0]).toBe(5);
      for (const name of greedyFetch) expect(Array.from(inBoth[name]!.data as ArrayLike<number | bigint>)).toEqual(Array.from(alone[name]!.data as ArrayLike<number | bigint>));
      const beamFetch = [BEAM_LOOP.rankedFrom, BEAM_LOOP.rankedIds, BEAM_LOOP.values, `${BEAM_LOOP.prefix}present.1.decoder.value`];
      const beamAlone = await beamSession!.run(feeds(beamSession!, { ...shared, ...beamOwn }), beamFetch);
      const beamInBoth = await bothSession!.run(feeds(bothSession!, { ...shared, ...beamOwn }), beamFetch);
      expect(beamAlone[BEAM_LOOP.values]!.dims[0]).toBeGreaterThan(1);
      for (const name of beamFetch) expect(Array.from(beamInBoth[name]!.data as ArrayLike<number | bigint>)).toEqual(Array.from(beamAlone[name]!.data as ArrayLike<number | bigint>));
    } finally {
      await Promise.all([crossKv, greedySession, beamSession, bothSession].map((s) => s?.release()));
    }
  });
});

describe('which decoders get beam search\'s Loop (beamLoopFits)', () => {
  it('an int8 (*_quantized.onnx) file up to 256 MB, an fp32 one up to 64 MB (fp32 packed weights are kept per Loop)', () => {
    withSparseFiles((file) => {
      expect(beamLoopFits(file('decoder_model_merged_quantized.onnx', 163))).toBe(true);
      expect(beamLoopFits(file('decoder_model_merged_quantized.onnx', 256))).toBe(true);
      expect(beamLoopFits(file('decoder_model_merged_quantized.onnx', 257))).toBe(false);
      expect(beamLoopFits(file('decoder_model_merged.onnx', 64))).toBe(true);
      expect(beamLoopFits(file('decoder_model_merged.onnx', 65))).toBe(false);
    });
  });
});

describe('the engine with the beam-loop pass', () => {
  it('translates exactly as one step a run: beam 4, n-best, NLLB\'s forced token, fixed lengths (fp32 and int8)', async () => {
    const marian = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 100);
    const nllb = nllbDev(20);
    expect(nllb.length).toBeGreaterThan(0);
    const out = await onAndOff('beam-loop', {}, async ({ engine, fixed, setting }) => {
      for (const m of engine.models().filter((x) => x.status === 'ok')) expect(m.beamLoop).toBe(setting === 'on');
      const nBest = await engine.translate(marian.slice(0, 15).map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 5, alternatives: 3 });
      // One sentence at a time too: a batch of one is where the Loop runs longest before a hypothesis ends it.
      const alone = [];
      for (const d of marian.slice(0, 5)) alone.push(...(await engine.translate([d.src], 'eng_Latn', 'deu_Latn', { beams: 4 })).translations);
      return [
        ...(await engine.translate(marian.map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 4 })).translations,
        ...nBest.translations, ...nBest.alternatives!.flat(), ...alone,
        ...(await engine.translate(nllb.map((d) => d.src), 'eng_Latn', 'fra_Latn', { beams: 4 })).translations,
        // EOS banned up to a fixed length, then forced: the Loop runs to the length, the last step is beam.ts's.
        ...(await fixed!.translate(marian.slice(0, 20).map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 4 })).translations,
      ];
    }, 24);
    for (const precision of ['fp32', 'int8']) {
      const on = out[`${precision}on`]!;
      const off = out[`${precision}off`]!;
      console.log(`${precision} beam strings equal with the beam Loop on and off: ${on.filter((t, i) => t === off[i]).length}/${on.length}`);
      expect(on).toEqual(off);
    }
    // And the reference: the PyTorch model's beam-4 output.
    expect(out.fp32on!.slice(0, 100).filter((t, i) => t === marian[i]!.beam4).length).toBeGreaterThanOrEqual(99);
  });
});
