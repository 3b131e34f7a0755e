// Beam search's log_softmax and best candidates in a small onnxruntime model (beam-head.ts): it returns exactly the
// scores and token order beam.ts's JavaScript computes from the same logits, and the engine's beam translations
// (n-best included) are the same with it on or off (DRAGOMAN_BEAM_TOPK), fp32 and int8, Marian and NLLB.
import { describe, expect, it } from 'vitest';
import { BeamHead } from '../../src/engine/beam-head.ts';
import { logSoftmax } from '../../src/engine/scores.ts';
import { nllbDev, onAndOff, readDev, type MarianDevRow } from './helpers.ts';

describe('the beam head', () => {
  it('gives the JavaScript scores float32(log_softmax + base) and their order (ties to the lower id), row by row', async () => {
    const head = await BeamHead.open({ logSeverityLevel: 3 });
    try {
      let x = 11;
      const rand = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
      const vocab = 5000;
      const k = 12;
      let compared = 0;
      for (let trial = 0; trial < 6; trial++) {
        // Wide logits, some rows coarse (many exact ties); bases as beam search has them: 0, -1e9 (inactive beams
        // of the first step), running float32 scores.
        const rows = 5;
        const logits = Float32Array.from({ length: rows * vocab }, (_, i) => (Math.floor(i / vocab) % 2 ? Math.round(rand() * 8) : (rand() - 0.5) * 30));
        const base = Float32Array.of(0, -1e9, Math.fround(-3.7 * trial), Math.fround(-rand() * 40), 0);
        const got = await head.candidates(logits, base, k);
        expect(got.k).toBe(k);
        const lp = new Float32Array(vocab);
        for (let r = 0; r < rows; r++) {
          logSoftmax(logits.subarray(r * vocab, (r + 1) * vocab), lp);
          const score = Float32Array.from(lp, (v) => Math.fround(v + base[r]!));
          const order = [...score.keys()].sort((a, b) => score[b]! - score[a]! || a - b).slice(0, k);
          expect([...got.ids.subarray(r * k, (r + 1) * k)].map(Number)).toEqual(order);
          expect([...got.scores.subarray(r * k, (r + 1) * k)]).toEqual(order.map((v) => score[v]!));
          compared += k;
        }
      }
      expect(compared).toBe(6 * 5 * 12);
    } finally {
      await head.release();
    }
  });
});

describe('the engine with DRAGOMAN_BEAM_TOPK', () => {
  it('gives the same beam translations and alternatives with the head as without (fp32, int8; forced and banned tokens)', async () => {
    const marian = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 60);
    const nllb = nllbDev(20);
    expect(nllb.length).toBeGreaterThan(0);
    // Exactly 12 new tokens in `fixed`: EOS banned before the 12th, forced at it (Marian).
    const out = await onAndOff('DRAGOMAN_BEAM_TOPK', {}, async ({ engine, fixed }): Promise<unknown[]> => [
      (await engine.translate(marian.map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 4 })).translations,
      (await engine.translate(marian.slice(0, 15).map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 5, alternatives: 3 })),
      (await engine.translate(nllb.map((d) => d.src), 'eng_Latn', 'fra_Latn', { beams: 4 })).translations,
      (await fixed!.translate(marian.slice(0, 20).map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 4 })).translations,
    ], 12);
    expect(out.fp32on).toEqual(out.fp32off);
    expect(out.int8on).toEqual(out.int8off);
    // Not vacuous: fp32 beam 4 is the reference model's beam output (dev.jsonl).
    const beam4 = out.fp32on![0] as string[];
    expect(beam4.filter((t, i) => t === marian[i]!.beam4).length).toBeGreaterThanOrEqual(59);
  });
});
