// Decoder-only translators answer exactly as transformers.js does with the same files: dragoman.json's prompt in the
// tokenizer's chat template, greedy generate, the new tokens decoded without special tokens. fp32 against the
// fixtures' dev.jsonl (PyTorch's answer, which transformers.js' fp32 gives: test/models/llm-reference.test.ts), all
// sentences of a direction in one call so that prompts of different lengths are batched with padding; the quantized
// files against transformers.js' q8 run made here (int8 kernels round differently on other processors), one sentence
// per call as the peer runs (onnxruntime quantizes activations per tensor, so an int8 answer depends on its batch).
// The onnxruntime-genai fixture (int4 MatMulNBits, GroupQueryAttention) against its graph's own int4 answers, and its
// int4 tolerance to the fp32 model it was exported from, measured.
import { join } from 'node:path';
import ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DragomanEngine } from '../../src/engine/index.ts';
import { ModelTokenizer } from '../../src/engine/model/tokenizer.ts';
import { LLM_GENAI_MODELS, LLM_MODELS, llmDev, llmReference, type LlmDevRow } from '../fixture-models.ts';
import { FIXTURES, engineOver, linkModel, rate, tempDir } from './helpers.ts';

const FLORES: Record<string, string> = { en: 'eng_Latn', de: 'deu_Latn' };
const DIRECTIONS = [['en', 'de'], ['de', 'en']] as const;

/** transformers.js' greedy answers with the q8 files, as its text-generation peers run them. */
async function liveQ8(folder: string, rows: LlmDevRow[]): Promise<string[]> {
  const { AutoModelForCausalLM, AutoTokenizer, env } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = FIXTURES + '/';
  env.useFSCache = false;
  const tokenizer = await AutoTokenizer.from_pretrained(folder, { local_files_only: true });
  const model = await AutoModelForCausalLM.from_pretrained(folder, { dtype: 'q8', local_files_only: true });
  try {
    const out: string[] = [];
    for (const row of rows) {
      const inputs = tokenizer.apply_chat_template([{ role: 'user', content: row.prompt }], { add_generation_prompt: true, return_dict: true }) as unknown as Record<string, { dims: number[] }>;
      const ids = (await model.generate({ ...inputs, do_sample: false, max_new_tokens: 128 })) as unknown as { slice: (...a: unknown[]) => unknown };
      const [text] = tokenizer.batch_decode(ids.slice(null, [inputs.input_ids!.dims[1], null]) as never, { skip_special_tokens: true });
      out.push(text!);
    }
    return out;
  } finally {
    await model.dispose();
  }
}

/**
 * An answer the reference cut at its token limit (one tiny-gemma3-mt caption runs on) is held to its beginning: the
 * engine's own limit is longer (docs/models.md).
 */
function agrees(answer: string, reference: string, ended: boolean): boolean {
  return ended ? answer === reference : answer.startsWith(reference);
}

for (const folder of LLM_MODELS) {
  for (const precision of ['fp32', 'int8'] as const) {
    describe(`${folder} (${precision}) answers as transformers.js`, () => {
      const dir = tempDir();
      let engine: DragomanEngine;
      const dev = llmDev(folder);
      let expected: string[];
      beforeAll(async () => {
        linkModel(join(dir.path, folder), folder);
        engine = await engineOver(dir.path, { DRAGOMAN_PRECISION: precision, DRAGOMAN_CACHE_SIZE: '0' });
        expected = precision === 'fp32' ? dev.map((r) => r.output) : await liveQ8(folder, dev);
      });
      afterAll(async () => {
        await engine.close();
        dir.remove();
      });

      it('is a decoder-only family serving the pairs its dragoman.json declares', () => {
        const info = engine.models().find((m) => m.name === folder)!;
        expect(info).toMatchObject({ status: 'ok', precision, sources: ['deu_Latn', 'eng_Latn'], targets: ['deu_Latn', 'eng_Latn'] });
        expect(['llama', 'qwen3', 'gemma3']).toContain(info.family);
        expect(engine.route('eng_Latn', 'deu_Latn')).toEqual([folder]);
        expect(engine.route('eng_Latn', 'fra_Latn')).toBeUndefined();
      });

      it('gives the reference answer for all 60 dev sentences', async () => {
        const answers: string[] = new Array(dev.length);
        for (const [s, t] of DIRECTIONS) {
          const at = dev.map((r, i) => (r.src_lang === s && r.tgt_lang === t ? i : -1)).filter((i) => i >= 0);
          if (precision === 'fp32') {
            const r = await engine.translate(at.map((i) => dev[i]!.src), FLORES[s]!, FLORES[t]!);
            expect(r.route).toEqual([folder]);
            at.forEach((i, k) => (answers[i] = r.translations[k]!));
          } else {
            for (const i of at) answers[i] = (await engine.translate([dev[i]!.src], FLORES[s]!, FLORES[t]!)).translations[0]!;
          }
        }
        const same = dev.filter((r, i) => agrees(answers[i]!, expected[i]!, r.ended)).length;
        console.log(`${folder} ${precision}: parity with transformers.js ${rate(same, dev.length)}`);
        expect(dev.map((r, i) => (agrees(answers[i]!, expected[i]!, r.ended) ? '' : `${r.src} -> ${answers[i]} (reference: ${expected[i]})`)).filter(Boolean)).toEqual([]);
      });
    });
  }
}

/** Teacher-forced: the share of the fp32 answer's tokens that the graph also ranks first, given the same prefix. */
async function tokenAgreement(graph: string, layers: number, kvHeads: number, headDim: number, prompts: number[][], answers: number[][]): Promise<number> {
  const session = await ort.InferenceSession.create(graph);
  let same = 0;
  let all = 0;
  try {
    for (const [i, prompt] of prompts.entries()) {
      const ids = [...prompt, ...answers[i]!];
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
      };
      for (let l = 0; l < layers; l++) for (const kv of ['key', 'value']) feeds[`past_key_values.${l}.${kv}`] = new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headDim]);
      const logits = (await session.run(feeds)).logits!;
      const vocab = logits.dims[2]!;
      const data = logits.data as Float32Array;
      answers[i]!.forEach((token, j) => {
        const row = data.subarray((prompt.length - 1 + j) * vocab, (prompt.length + j) * vocab);
        let best = 0;
        for (let v = 1; v < vocab; v++) if (row[v]! > row[best]!) best = v;
        same += best === token ? 1 : 0;
        all++;
      });
    }
  } finally {
    await session.release();
  }
  return same / all;
}

/** docs/models.md: an int4 graph ranks first at least this share of its fp32 model's greedy tokens (teacher-forced). */
const INT4_TOKEN_AGREEMENT = 0.8;

for (const folder of LLM_GENAI_MODELS) {
  describe(`${folder} (onnxruntime-genai layout, int4)`, () => {
    const dir = tempDir();
    let engine: DragomanEngine;
    const dev = llmDev(folder);
    const reference = llmReference(folder);
    beforeAll(async () => {
      linkModel(join(dir.path, folder), folder);
      engine = await engineOver(dir.path, { DRAGOMAN_CACHE_SIZE: '0' });
    });
    afterAll(async () => {
      await engine.close();
      dir.remove();
    });

    it('runs its int4 graph and gives that graph\'s own answers for all 60 dev sentences', async () => {
      const info = engine.models().find((m) => m.name === folder)!;
      expect(info).toMatchObject({ status: 'ok', family: 'llama', precision: 'int4' });
      const answers: string[] = new Array(dev.length);
      for (const [s, t] of DIRECTIONS) {
        const at = dev.map((r, i) => (r.src_lang === s && r.tgt_lang === t ? i : -1)).filter((i) => i >= 0);
        const r = await engine.translate(at.map((i) => dev[i]!.src), FLORES[s]!, FLORES[t]!);
        at.forEach((i, k) => (answers[i] = r.translations[k]!));
      }
      const same = reference.filter((r, i) => answers[i] === r.int4).length;
      console.log(`${folder} int4: parity with its graph on onnxruntime ${rate(same, dev.length)}`);
      expect(reference.map((r, i) => (answers[i] === r.int4 ? '' : `${r.src} -> ${answers[i]} (graph: ${r.int4})`)).filter(Boolean)).toEqual([]);
    });

    it(`stays within the int4 tolerance of its fp32 model (>= ${INT4_TOKEN_AGREEMENT * 100}% of its tokens ranked first)`, async () => {
      const tokenizer = await ModelTokenizer.load(join(FIXTURES, folder));
      const prompts = dev.map((r) => tokenizer.chat(r.prompt));
      const agreement = await tokenAgreement(join(FIXTURES, folder, 'model.onnx'), 2, 2, 16, prompts, dev.map((r) => r.output_ids));
      const sameAnswers = reference.filter((r, i) => r.int4 === dev[i]!.output).length;
      console.log(`${folder} int4 against its fp32 model: ${(agreement * 100).toFixed(1)}% of tokens ranked first, ${rate(sameAnswers, dev.length)} answers identical`);
      expect(agreement).toBeGreaterThanOrEqual(INT4_TOKEN_AGREEMENT);
    });
  });
}
