// The merged decoder cut in two without its If: the pieces are well-formed, compute what the merged file computes,
// and the engine uses them (or the merged file when told to, or when the file cannot be cut).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { splitMergedDecoder } from '../../src/engine/graph/decoder-split.ts';
import { CORE_FIXTURES, FIXTURES, engineOver, graphOf, maxAbsDiff, readDev, type MarianDevRow } from './helpers.ts';

const MODELS = [
  { name: 'tiny-marian-en-de', layers: 2, start: 3999 },
  { name: 'tiny-nllb', layers: 2, start: 2 },
];

describe('splitting a merged decoder', () => {
  for (const { name, layers, start } of MODELS) {
    for (const file of ['decoder_model_merged.onnx', 'decoder_model_merged_quantized.onnx']) {
      it(`${name}/${file}: two models without If, giving the merged file's logits step after step`, async () => {
        const path = join(FIXTURES, name, 'onnx', file);
        const parts = splitMergedDecoder(readFileSync(path))!;
        expect(parts).toBeDefined();
        const withPast = graphOf(parts.withPast);
        const crossKv = graphOf(parts.crossKv);
        expect(withPast.ops).not.toContain('If');
        expect(crossKv.ops).not.toContain('If');
        expect(withPast.inputs).not.toContain('use_cache_branch');
        expect(withPast.outputs.sort()).toEqual(['logits', ...Array.from({ length: layers }, (_, i) => [`present.${i}.decoder.key`, `present.${i}.decoder.value`]).flat()].sort());
        expect(crossKv.outputs.sort()).toEqual(Array.from({ length: layers }, (_, i) => [`present.${i}.encoder.key`, `present.${i}.encoder.value`]).flat().sort());

        const merged = await ort.InferenceSession.create(path);
        const wp = await ort.InferenceSession.create(parts.withPast);
        const kv = await ort.InferenceSession.create(parts.crossKv);
        const encoder = await ort.InferenceSession.create(join(FIXTURES, name, 'onnx', file.replace('decoder_model_merged', 'encoder_model')));
        try {
          const L = 9;
          const mask = new ort.Tensor('int64', new BigInt64Array(L).fill(1n), [1, L]);
          const hidden = (await encoder.run({ input_ids: new ort.Tensor('int64', BigInt64Array.from({ length: L }, (_, i) => BigInt(5 + i * 11)), [1, L]), attention_mask: mask })).last_hidden_state!;
          const [, heads, , headDim] = (await kv.run({ encoder_hidden_states: hidden }))['present.0.encoder.key']!.dims as number[];
          const empty = () => new ort.Tensor('float32', new Float32Array(0), [1, heads!, 0, headDim!]);
          const pastA: Record<string, ort.Tensor> = {};
          const pastB: Record<string, ort.Tensor> = {};
          for (let i = 0; i < layers; i++) for (const k of ['decoder', 'encoder']) for (const v of ['key', 'value']) {
            pastA[`past_key_values.${i}.${k}.${v}`] = empty();
            pastB[`past_key_values.${i}.${k}.${v}`] = empty();
          }
          const cross = await kv.run(Object.fromEntries(kv.inputNames.map((n) => [n, n === 'encoder_attention_mask' ? mask : hidden])));
          for (let i = 0; i < layers; i++) for (const v of ['key', 'value']) pastB[`past_key_values.${i}.encoder.${v}`] = cross[`present.${i}.encoder.${v}`]!;
          let token = BigInt(start);
          for (let step = 0; step < 6; step++) {
            const base = { encoder_attention_mask: mask, input_ids: new ort.Tensor('int64', BigInt64Array.of(token), [1, 1]), encoder_hidden_states: hidden };
            const a = await merged.run({ ...base, ...pastA, use_cache_branch: new ort.Tensor('bool', Uint8Array.of(step > 0 ? 1 : 0), [1]) });
            const feedsB: Record<string, ort.Tensor> = { ...base, ...pastB };
            const b = await wp.run(Object.fromEntries(wp.inputNames.map((n) => [n, feedsB[n]!])));
            const la = a.logits!.data as Float32Array;
            const lb = b.logits!.data as Float32Array;
            const diff = maxAbsDiff(la, lb);
            // The first step runs the with-past branch on an empty cache instead of the no-past branch: the same
            // arithmetic in a different fusion, so float rounding may differ there; later steps are identical.
            expect(diff).toBeLessThan(step === 0 ? 1e-4 : 1e-5);
            for (let i = 0; i < layers; i++) for (const v of ['key', 'value']) {
              pastA[`past_key_values.${i}.decoder.${v}`] = a[`present.${i}.decoder.${v}`]!;
              pastB[`past_key_values.${i}.decoder.${v}`] = b[`present.${i}.decoder.${v}`]!;
              if (step === 0) pastA[`past_key_values.${i}.encoder.${v}`] = a[`present.${i}.encoder.${v}`]!;
            }
            let best = 0;
            for (let j = 1; j < la.length; j++) if (la[j]! > la[best]!) best = j;
            token = BigInt(best);
          }
        } finally {
          await Promise.all([merged, wp, kv, encoder].map((s) => s.release()));
        }
      });
    }
  }

  it('leaves a model without the merged If alone', () => {
    expect(splitMergedDecoder(readFileSync(join(FIXTURES, 'tiny-marian-en-de/onnx/encoder_model.onnx')))).toBeUndefined();
  });

  it('the engine runs the split decoder by default, the merged file with DRAGOMAN_SKIP_PASSES=split, same translations', async () => {
    const dev = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 20);
    const out: Record<string, string[]> = {};
    for (const setting of ['on', 'off']) {
      const engine = await engineOver(CORE_FIXTURES, { DRAGOMAN_WORKERS: '1', DRAGOMAN_SKIP_PASSES: setting === 'on' ? '' : 'split', DRAGOMAN_BEAM: '1', DRAGOMAN_CACHE_SIZE: '0' });
      try {
        const kinds = engine.models().filter((m) => m.status === 'ok').map((m) => m.decoder);
        expect(kinds.length).toBeGreaterThan(0);
        expect(new Set(kinds)).toEqual(new Set([setting === 'on' ? 'split' : 'merged']));
        out[setting] = (await engine.translate(dev.map((d) => d.src), 'eng_Latn', 'deu_Latn')).translations;
      } finally {
        await engine.close();
      }
    }
    expect(out.on).toEqual(out.off);
    expect(out.on).toEqual(dev.map((d) => d.greedy));
  });
});
