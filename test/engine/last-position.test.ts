// A decoder-only graph rewritten to compute logits at the last position only (graph/last-position.ts): on every LLM
// fixture file (fp32, int8 with its per-tensor DynamicQuantizeLinear, the genai int4 graph), a left-padded prefill
// gives [rows, 1, vocabulary] equal to the original graph's last position, bit for bit. A graph whose logits do not
// come from a projection is left alone. The engine makes the rewritten file once, keeps it in the graph cache for the
// next load, and leaves the rewrite out under DRAGOMAN_SKIP_PASSES=last-position.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/index.ts';
import { loadConfig } from '../../src/config/env.ts';
import { lastPositionLogits } from '../../src/engine/graph/last-position.ts';
import { concat } from '../../src/engine/model/onnx-proto.ts';
import { LLM_GENAI_MODELS, LLM_MODELS, llmDev } from '../fixture-models.ts';
import { FIXTURES, identityLogitsModel, linkModel, tempDir } from './helpers.ts';

const FILES = [
  ...LLM_MODELS.flatMap((m) => [join(m, 'onnx', 'model.onnx'), join(m, 'onnx', 'model_quantized.onnx')]),
  ...LLM_GENAI_MODELS.map((m) => join(m, 'model.onnx')),
];

/** A prefill of two prompts, the first padded on the left, as causal-lm.ts feeds it. */
function prefill(session: ort.InferenceSession): Record<string, ort.Tensor> {
  const rows = 2;
  const width = 5;
  const i64 = (v: number[]) => new ort.Tensor('int64', BigInt64Array.from(v.map(BigInt)), [rows, width]);
  const feeds: Record<string, ort.Tensor> = {
    input_ids: i64([0, 0, 15, 29, 888, 41, 174, 142, 132, 70]),
    attention_mask: i64([0, 0, 1, 1, 1, 1, 1, 1, 1, 1]),
  };
  if (session.inputNames.includes('position_ids')) feeds.position_ids = i64([1, 1, 0, 1, 2, 0, 1, 2, 3, 4]);
  for (const name of session.inputNames.filter((n) => n.startsWith('past_key_values'))) {
    const meta = session.inputMetadata.find((m) => m.name === name) as { shape?: (number | string)[] } | undefined;
    const [, heads, , size] = meta?.shape ?? [];
    feeds[name] = new ort.Tensor('float32', new Float32Array(0), [rows, Number(heads), 0, Number(size)]);
  }
  return feeds;
}

describe('logits at the last position', () => {
  for (const file of FILES) {
    it(`${file}: [rows, 1, vocabulary], equal to the graph's own last position`, async () => {
      const bytes = new Uint8Array(readFileSync(join(FIXTURES, file)));
      const parts = lastPositionLogits(bytes);
      expect(parts).toBeDefined();
      const [before, after] = await Promise.all([ort.InferenceSession.create(bytes), ort.InferenceSession.create(concat(parts!))]);
      try {
        const feeds = prefill(before);
        const [full, last] = [(await before.run(feeds)).logits!, (await after.run(feeds)).logits!];
        const [rows, width, vocab] = full.dims as number[];
        expect(last.dims).toEqual([rows, 1, vocab]);
        for (let r = 0; r < rows!; r++) {
          const want = (full.data as Float32Array).subarray((r * width! + width! - 1) * vocab!, (r * width! + width!) * vocab!);
          expect(Array.from((last.data as Float32Array).subarray(r * vocab!, (r + 1) * vocab!))).toEqual(Array.from(want));
        }
      } finally {
        await Promise.all([before.release(), after.release()]);
      }
    });
  }

  it('leaves a graph whose logits come from no projection as it is', () => {
    expect(lastPositionLogits(identityLogitsModel())).toBeUndefined();
  });
});

describe('the engine\'s rewritten file', () => {
  const dirs = [tempDir('dragoman-lm-models-'), tempDir('dragoman-lm-cache-')];
  const [models, cache] = dirs as [ReturnType<typeof tempDir>, ReturnType<typeof tempDir>];
  linkModel(join(models.path, 'tiny-qwen3-mt'), 'tiny-qwen3-mt');
  afterAll(() => dirs.forEach((d) => d.remove()));
  const rows = llmDev('tiny-qwen3-mt').filter((r) => r.src_lang === 'en' && r.ended).slice(0, 4);
  const engineWith = (env: Record<string, string> = {}) => createEngine(loadConfig({
    DRAGOMAN_MODELS_DIR: models.path, DRAGOMAN_GRAPH_CACHE_DIR: cache.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_CACHE_SIZE: '0', ...env,
  }));
  const entries = () => readdirSync(cache.path).filter((n) => n.startsWith('lm-'));
  const translate = async (env?: Record<string, string>) => {
    const engine = await engineWith(env);
    try {
      return (await engine.translate(rows.map((r) => r.src), 'eng_Latn', 'deu_Latn')).translations;
    } finally {
      await engine.close();
    }
  };

  it('is made once, kept in the graph cache and read from there on the next load, with the same answers', async () => {
    expect(await translate()).toEqual(rows.map((r) => r.output));
    expect(entries()).toHaveLength(1);
    const entry = join(cache.path, entries()[0]!);
    expect(JSON.parse(readFileSync(join(entry, 'graph.json'), 'utf8'))).toEqual({ kind: 'last-position' });
    const made = statSync(join(entry, 'model.onnx')).mtimeMs;
    expect(await translate()).toEqual(rows.map((r) => r.output));
    expect(statSync(join(entry, 'model.onnx')).mtimeMs).toBe(made);
    expect(entries()).toHaveLength(1);
  });

  it('is left out under DRAGOMAN_SKIP_PASSES=last-position, with the same answers', async () => {
    const other = tempDir('dragoman-lm-cache-skip-');
    try {
      const engine = await createEngine(loadConfig({
        DRAGOMAN_MODELS_DIR: models.path, DRAGOMAN_GRAPH_CACHE_DIR: other.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_CACHE_SIZE: '0',
        DRAGOMAN_SKIP_PASSES: 'last-position',
      }));
      try {
        expect((await engine.translate(rows.map((r) => r.src), 'eng_Latn', 'deu_Latn')).translations).toEqual(rows.map((r) => r.output));
      } finally {
        await engine.close();
      }
      expect(existsSync(other.path) ? readdirSync(other.path).filter((n) => n.startsWith('lm-')) : []).toEqual([]);
    } finally {
      other.remove();
    }
  });
});
