// Beam search's candidates from the decoder (top-candidates.ts withSearchOutputs): the added
// outputs are each row's max, log Σ exp(x − max) and m best logits (ties to the lower id); beam.ts's use of them
// chooses exactly what its scan over all logits chooses with the same statistics, also when ties reach the m-th
// candidate; and the engine's beam translations keep the reference's beam output with it on or off.
import { describe, expect, it } from 'vitest';
import ort from 'onnxruntime-node';
import { beamSearch } from '../../src/engine/search/beam.ts';
import { generationRules } from '../../src/engine/model/family.ts';
import { processorsFor } from '../../src/engine/search/logits-processors.ts';
import { FLOAT, GRAPH, concat, lenField, modelBytes, nodeField, tensorInfoField } from '../../src/engine/graph/onnx-proto.ts';
import type { GenerationRow } from '../../src/engine/pool/protocol.ts';
import { softmaxStats } from '../../src/engine/search/scores.ts';
import type { SearchDecoder } from '../../src/engine/runtime/search-decoder.ts';
import { SEARCH, withSearchOutputs } from '../../src/engine/graph/top-candidates.ts';
import { FIXTURES, engineOver, nllbDev, onAndOff, readDev, type MarianDevRow } from './helpers.ts';

function lcg(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

/** JavaScript's order of a row: score desc, token id asc. */
const bestFirst = (row: Float32Array, m: number) => [...row.keys()].sort((a, b) => row[b]! - row[a]! || a - b).slice(0, m);

describe('withSearchOutputs', () => {
  it('adds each row\'s max, log-sum-exp (over the part of the row asked for) and m best logits (ties to the lower id)', async () => {
    // A graph whose `logits` output is its input, so the added nodes see known values.
    const identity = modelBytes(concat([
      nodeField('Identity', ['x'], ['logits'], 'id'),
      lenField(GRAPH.name, 'identity'),
      tensorInfoField(GRAPH.input, 'x', FLOAT, ['rows', 1, 'vocab']),
      tensorInfoField(GRAPH.output, 'logits', FLOAT, ['rows', 1, 'vocab']),
    ]), 14);
    const model = withSearchOutputs(identity)!;
    expect(model).toBeDefined();
    const session = await ort.InferenceSession.create(model, { logSeverityLevel: 3 });
    try {
      const rand = lcg(7);
      const rows = 6;
      const vocab = 3000;
      // Odd rows coarse (many exact ties), even rows wide.
      const x = Float32Array.from({ length: rows * vocab }, (_, i) => (Math.floor(i / vocab) % 2 ? Math.round(rand() * 8) : (rand() - 0.5) * 40));
      for (const [m, statsLen] of [[16, 2 ** 40], [5, vocab], [40, 700]]) {
        const out = await session.run({
          x: new ort.Tensor('float32', x, [rows, 1, vocab]),
          [SEARCH.k]: new ort.Tensor('int64', BigInt64Array.of(BigInt(m)), [1]),
          [SEARCH.statsLen]: new ort.Tensor('int64', BigInt64Array.of(BigInt(statsLen)), [1]),
        });
        for (let r = 0; r < rows; r++) {
          const row = x.subarray(r * vocab, (r + 1) * vocab);
          const js = softmaxStats(row.subarray(0, Math.min(vocab, statsLen)));
          expect((out[SEARCH.max]!.data as Float32Array)[r]).toBe(js.max);
          // Summed in float32 by onnxruntime, in double by JavaScript: the same value to float32 precision.
          expect(Math.abs((out[SEARCH.logSum]!.data as Float32Array)[r]! - js.logSum)).toBeLessThan(1e-5 * Math.max(1, Math.abs(js.logSum)));
          const order = bestFirst(row, m);
          expect([...(out[SEARCH.ids]!.data as BigInt64Array).subarray(r * m, (r + 1) * m)].map(Number)).toEqual(order);
          expect([...(out[SEARCH.values]!.data as Float32Array).subarray(r * m, (r + 1) * m)]).toEqual(order.map((v) => row[v]!));
        }
      }
    } finally {
      await session.release();
    }
  });
});

/**
 * A stand-in SearchDecoder: its "cache" is each state row's token history, and its logits a coarse function of
 * that history (values 0..6 in steps of 0.5: ties everywhere, at the m-th candidate too). A step answers as the
 * decoder's added outputs do, from the same numbers; `withCandidates` switches beam.ts between the two paths.
 */
function fakeModel(vocab: number, withCandidates: boolean) {
  const logitsOf = (history: number[], step: number) => {
    const rand = lcg(history.reduce((h, t) => (h * 31 + t + 7) % 1_000_003, 17 + step));
    return Float32Array.from({ length: vocab }, () => Math.round(rand() * 12) / 2);
  };
  let fallbacks = 0;
  const all = (state: { rows: number[][]; step: number }, tokens: number[]) => {
    state.rows.forEach((h, i) => h.push(tokens[i]!));
    const out = new Float32Array(state.rows.length * vocab);
    state.rows.forEach((h, i) => out.set(logitsOf(h, state.step), i * vocab));
    state.step++;
    return out;
  };
  const none = { ids: new BigInt64Array(0), values: new Float32Array(0), max: new Float32Array(0), logSum: new Float32Array(0) };
  const decoder: SearchDecoder = {
    begin: async (sources, copies = 1) => ({ rows: sources.flatMap((r) => Array.from({ length: copies }, () => [...r])), step: 0 }) as never,
    step: async (state: never, tokens, want) => {
      const s = state as { rows: number[][]; step: number };
      const logits = all(s, [...tokens]);
      const m = want.k;
      if (!withCandidates || m === 0) return { k: 0, ...none, logits: async () => logits };
      const n = s.rows.length;
      const result = { k: m, max: new Float32Array(n), logSum: new Float32Array(n), values: new Float32Array(n * m), ids: new BigInt64Array(n * m) };
      for (let r = 0; r < n; r++) {
        const row = logits.subarray(r * vocab, (r + 1) * vocab);
        const st = softmaxStats(row);
        result.max[r] = st.max;
        result.logSum[r] = st.logSum;
        bestFirst(row, m).forEach((v, j) => {
          result.values[r * m + j] = row[v]!;
          result.ids[r * m + j] = BigInt(v);
        });
      }
      return { ...result, logits: async () => (fallbacks++, logits) };
    },
    greedyRun: async () => undefined,
    beamRun: async () => undefined,
    reorder: (state: never, from) => {
      const s = state as { rows: number[][] };
      s.rows = from.map((i) => [...s.rows[i]!]);
    },
    select: (state: never, keep) => {
      const s = state as { rows: number[][] };
      s.rows = keep.map((i) => s.rows[i]!);
    },
  };
  return { model: decoder, fallbacks: () => fallbacks };
}

describe('beam search with the decoder\'s candidates', () => {
  it('chooses what the scan over all logits chooses, falling back to it when a tie reaches the m-th candidate', async () => {
    const vocab = 400;
    const rules = generationRules('marian', { vocab_size: vocab }, { decoder_start_token_id: vocab - 1, pad_token_id: vocab - 1, eos_token_id: 0, bad_words_ids: [[vocab - 1]], forced_eos_token_id: 0 });
    const processors = processorsFor(rules);
    const rows: GenerationRow[] = Array.from({ length: 5 }, (_, i) => ({ ids: [i + 3, i + 9, 0], maxNewTokens: 6 + 3 * i, minNewTokens: i % 2 ? 3 : 0, forcedFirstId: undefined }));
    for (const [beams, nBest] of [[4, 1], [5, 3], [2, 2]] as const) {
      const scan = await beamSearch(fakeModel(vocab, false).model, rules, processors, rows, beams, nBest);
      const fast = fakeModel(vocab, true);
      const withCandidates = await beamSearch(fast.model, rules, processors, rows, beams, nBest);
      expect(withCandidates).toEqual(scan);
      expect(scan.flat().every((h) => h.length > 0)).toBe(true);
      // Coarse logits: ties at the boundary are common, so the fallback is exercised (real logits almost never).
      expect(fast.fallbacks()).toBeGreaterThan(0);
    }
  });
});

describe('the engine with the search-outputs pass (beam search)', () => {
  it('keeps the reference beam output and n-best with the decoder\'s candidates, as the JavaScript scan does (fp32, int8; forced and banned tokens)', async () => {
    const marian = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 60);
    const nllb = nllbDev(20);
    expect(nllb.length).toBeGreaterThan(0);
    const out = await onAndOff('search-outputs', {}, async ({ engine }) => {
      const nBest = await engine.translate(marian.slice(0, 15).map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 5, alternatives: 3 });
      return [
        ...(await engine.translate(marian.map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 4 })).translations,
        ...nBest.translations, ...nBest.alternatives!.flat(),
        ...(await engine.translate(nllb.map((d) => d.src), 'eng_Latn', 'fra_Latn', { beams: 4 })).translations,
      ];
    });
    // The two paths sum exp(x − max) in float32 (onnxruntime) and in double (JavaScript): a last-bit difference of
    // log Σ may reorder a near tie, so the paths are compared as a whole, the reference exactly.
    for (const precision of ['fp32', 'int8']) {
      const on = out[`${precision}on`]!;
      const off = out[`${precision}off`]!;
      const same = on.filter((t, i) => t === off[i]).length;
      console.log(`${precision} beam strings equal with the search outputs on and off: ${same}/${on.length}`);
      expect(same).toBeGreaterThanOrEqual(on.length - 2);
    }
    const beam4 = out.fp32on!.slice(0, 60);
    expect(beam4.filter((t, i) => t === marian[i]!.beam4).length).toBeGreaterThanOrEqual(59);
  });
});
