// The uint8 output projection stored as int8 (weight and zero point shifted by -128): exactly the same logits on a
// VNNI CPU, used by the engine only there, and refused for models it does not apply to.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { splitMergedDecoder } from '../../src/engine/graph/decoder-split.ts';
import { GRAPH, INT8, TENSOR, UINT8, fields, modelGraph, strings } from '../../src/engine/model/onnx-proto.ts';
import { cpuHasVnni } from '../../src/engine/graph/cpu-features.ts';
import { signedMatMulWeights } from '../../src/engine/graph/signed-weights.ts';
import { CORE_FIXTURES, FIXTURES, engineOver, oneModelDir, readDev, type MarianDevRow } from './helpers.ts';

const onnx = (name: string, file: string) => join(FIXTURES, name, 'onnx', file);

function tensorTypes(model: Uint8Array): Map<string, number> {
  const graph = modelGraph(model)!.fields;
  return new Map(graph.filter((f) => f.no === GRAPH.initializer).map((f) => {
    const parts = fields(f.value);
    return [strings(parts, TENSOR.name)[0]!, parts.find((p) => p.no === TENSOR.dataType)!.varint];
  }));
}

describe('int8 storage of uint8 MatMul weights', () => {
  const withPast = splitMergedDecoder(readFileSync(onnx('tiny-marian-en-de', 'decoder_model_merged_quantized.onnx')))!.withPast;

  it('shifts exactly the tied uint8 weight and its zero point', () => {
    const signed = signedMatMulWeights(withPast)!;
    expect(signed).toBeDefined();
    const before = tensorTypes(withPast);
    const after = tensorTypes(signed);
    const changed = [...before].filter(([name, type]) => after.get(name) !== type).map(([name]) => name).sort();
    expect(changed).toEqual(['model.shared.weight_quantized', 'model.shared.weight_zero_point']);
    for (const name of changed) {
      expect(before.get(name)).toBe(UINT8);
      expect(after.get(name)).toBe(INT8);
    }
  });

  it('leaves models without uint8 MatMul weights alone', () => {
    expect(signedMatMulWeights(readFileSync(onnx('tiny-marian-en-de', 'decoder_model_merged.onnx')))).toBeUndefined(); // fp32
    expect(signedMatMulWeights(readFileSync(onnx('tiny-nllb', 'decoder_model_merged_quantized.onnx')))).toBeUndefined(); // int8 weights already
  });

  it('recognises VNNI from /proc/cpuinfo flags', () => {
    expect(cpuHasVnni('flags\t\t: fpu avx2 avx512f avx512_vnni')).toBe(process.arch === 'x64');
    expect(cpuHasVnni('flags\t\t: fpu avx2 avx_vnni')).toBe(process.arch === 'x64');
    expect(cpuHasVnni('flags\t\t: fpu avx2 avx512f avx512bw')).toBe(false);
  });

  it(`gives the same logits, step after step${cpuHasVnni() ? '' : ' (this CPU has no VNNI: the engine must not use it)'}`, async () => {
    if (!cpuHasVnni()) {
      const engine = await engineOver(CORE_FIXTURES, { DRAGOMAN_PRECISION: 'int8', DRAGOMAN_WORKERS: '1' });
      try {
        expect(engine.models().filter((m) => m.status === 'ok').every((m) => m.signedWeights === false)).toBe(true);
      } finally {
        await engine.close();
      }
      return;
    }
    const parts = splitMergedDecoder(readFileSync(onnx('tiny-marian-en-de', 'decoder_model_merged_quantized.onnx')))!;
    const sessions = await Promise.all([parts.withPast, signedMatMulWeights(parts.withPast)!, parts.crossKv].map((m) => ort.InferenceSession.create(m)));
    const encoder = await ort.InferenceSession.create(onnx('tiny-marian-en-de', 'encoder_model_quantized.onnx'));
    try {
      const [plain, signed, kv] = sessions as [ort.InferenceSession, ort.InferenceSession, ort.InferenceSession];
      const L = 11;
      const mask = new ort.Tensor('int64', new BigInt64Array(L).fill(1n), [1, L]);
      const hidden = (await encoder.run({ input_ids: new ort.Tensor('int64', BigInt64Array.from({ length: L }, (_, i) => BigInt(7 + i * 29)), [1, L]), attention_mask: mask })).last_hidden_state!;
      const cross = await kv.run({ encoder_hidden_states: hidden });
      const run = async (s: ort.InferenceSession) => {
        const past: Record<string, ort.Tensor> = {};
        for (let i = 0; i < 2; i++) for (const v of ['key', 'value']) {
          past[`past_key_values.${i}.encoder.${v}`] = cross[`present.${i}.encoder.${v}`]!;
          past[`past_key_values.${i}.decoder.${v}`] = new ort.Tensor('float32', new Float32Array(0), [1, 4, 0, 32]);
        }
        let token = 3999n;
        const all: number[] = [];
        for (let step = 0; step < 12; step++) {
          const feeds: Record<string, ort.Tensor> = { encoder_attention_mask: mask, input_ids: new ort.Tensor('int64', BigInt64Array.of(token), [1, 1]), encoder_hidden_states: hidden, ...past };
          const out = await s.run(Object.fromEntries(s.inputNames.map((n) => [n, feeds[n]!])));
          for (let i = 0; i < 2; i++) for (const v of ['key', 'value']) past[`past_key_values.${i}.decoder.${v}`] = out[`present.${i}.decoder.${v}`]!;
          const logits = out.logits!.data as Float32Array;
          all.push(...logits);
          let best = 0;
          for (let j = 1; j < logits.length; j++) if (logits[j]! > logits[best]!) best = j;
          token = BigInt(best);
        }
        return all;
      };
      const a = await run(plain);
      const b = await run(signed);
      expect(b.length).toBe(a.length);
      expect(b.every((x, i) => x === a[i])).toBe(true);
    } finally {
      await Promise.all([...sessions, encoder].map((s) => s.release()));
    }
  });

  it('the int8 engine uses it on a VNNI CPU and translates exactly as with the merged file', async () => {
    const dev = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 30).map((d) => d.src);
    const out: string[][] = [];
    for (const split of ['on', 'off']) {
      // Attention fusion off: it changes float rounding (attention-fusion.test.ts), this is about the int8 weights alone.
      // The one model looked at and translated with, alone in its folder.
      const engine = await engineOver(oneModelDir('tiny-marian-en-de'), {
        DRAGOMAN_PRECISION: 'int8', DRAGOMAN_WORKERS: '1', DRAGOMAN_SKIP_PASSES: split === 'on' ? 'attention-fusion' : 'split', DRAGOMAN_BEAM: '1', DRAGOMAN_CACHE_SIZE: '0',
      });
      try {
        const marian = engine.models().find((m) => m.name === 'tiny-marian-en-de')!;
        expect(marian.signedWeights).toBe(split === 'on' && cpuHasVnni());
        out.push((await engine.translate(dev, 'eng_Latn', 'deu_Latn')).translations);
      } finally {
        await engine.close();
      }
    }
    expect(out[0]).toEqual(out[1]);
  });
});
