// The decoder-only fixtures against transformers.js, the reference an engine running them is held to: dragoman.json's
// prompt wrapped by the tokenizer's chat template, greedy generate, the new tokens decoded without special tokens.
// fp32 gives dev.jsonl's PyTorch answer and q8 reference.jsonl's (scripts/fixtures/check-llm-parity.mjs runs all 60
// rows; this runs a few of each direction). The genai-layout fixture's int4 graph runs on onnxruntime-node.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AutoModelForCausalLM, AutoTokenizer, env, type PreTrainedTokenizer } from '@huggingface/transformers';
import ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { FIXTURE_MODELS_DIR, LLM_GENAI_MODELS, LLM_MODELS, llmDev, llmReference, type LlmDevRow } from '../fixture-models.ts';

env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = FIXTURE_MODELS_DIR + '/';
env.useFSCache = false;

interface Dragoman {
  prompt: string;
  languages: Record<string, string>;
  pairs: [string, string][];
}

const readJson = <T>(folder: string, file: string): T => JSON.parse(readFileSync(join(FIXTURE_MODELS_DIR, folder, file), 'utf8')) as T;
const fill = (d: Dragoman, row: LlmDevRow) => d.prompt.replaceAll('{source_name}', d.languages[row.src_lang]!)
  .replaceAll('{target_name}', d.languages[row.tgt_lang]!).replaceAll('{text}', row.src);
// two rows of each direction (dev.jsonl: 30 en>de, then 30 de>en)
const ROWS = [0, 1, 30, 31];
const MAX_NEW_TOKENS = 64;

function promptIds(tokenizer: PreTrainedTokenizer, d: Dragoman, row: LlmDevRow): number[] {
  const { input_ids } = tokenizer.apply_chat_template([{ role: 'user', content: fill(d, row) }],
    { add_generation_prompt: true, return_dict: true, return_tensor: false }) as unknown as { input_ids: number[] };
  return input_ids;
}

describe.each(LLM_MODELS)('%s', (folder) => {
  const d = readJson<Dragoman>(folder, 'dragoman.json');
  const config = readJson<{ model_type: string }>(folder, 'config.json');
  const dev = llmDev(folder);

  it('declares its prompt and languages, and holds 60 held-out rows whose answers end by themselves', () => {
    // (tiny-gemma3-mt runs one caption to the 64-token limit)
    expect(['llama', 'qwen3', 'gemma3_text']).toContain(config.model_type);
    expect(d.prompt).toContain('{source_name}');
    expect(d.prompt).toContain('{target_name}');
    expect(d.prompt).toContain('{text}');
    expect(d.pairs).toEqual([['en', 'de'], ['de', 'en']]);
    expect(dev).toHaveLength(60);
    expect(dev.every((r) => r.prompt === fill(d, r))).toBe(true);
    expect(dev.filter((r) => r.ended).length).toBeGreaterThanOrEqual(59);
  });

  it.each(['fp32', 'q8'] as const)('gives the reference answers with transformers.js (%s)', async (dtype) => {
    const tokenizer = await AutoTokenizer.from_pretrained(folder, { local_files_only: true });
    const model = await AutoModelForCausalLM.from_pretrained(folder, { dtype, local_files_only: true });
    const reference = llmReference(folder);
    try {
      for (const i of ROWS) {
        const row = dev[i]!;
        const inputs = tokenizer.apply_chat_template([{ role: 'user', content: fill(d, row) }],
          { add_generation_prompt: true, return_dict: true }) as unknown as Record<string, { dims: number[] }>;
        const out = (await model.generate({ ...inputs, do_sample: false, max_new_tokens: MAX_NEW_TOKENS })) as unknown as {
          slice: (...a: unknown[]) => { dims: number[] };
        };
        const fresh = out.slice(null, [inputs.input_ids!.dims[1], null]);
        const [text] = tokenizer.batch_decode(fresh as never, { skip_special_tokens: true });
        // fp32 is PyTorch's answer itself; q8 is transformers.js's own answer with the quantized file
        expect(text, `${row.src_lang}>${row.tgt_lang} ${row.src}`).toBe(dtype === 'fp32' ? row.output : reference[i]![dtype]);
        expect(fresh.dims[1], 'the answer ends before the token limit').toBeLessThan(MAX_NEW_TOKENS);
      }
    } finally {
      await model.dispose();
    }
  });
});

describe.each(LLM_GENAI_MODELS)('%s (onnxruntime-genai layout)', (folder) => {
  const dir = join(FIXTURE_MODELS_DIR, folder);
  const genai = readJson<{ model: { decoder: Record<string, never> & { filename: string; num_hidden_layers: number; num_key_value_heads: number; head_size: number }; eos_token_id: number[] }; search: { past_present_share_buffer: boolean } }>(folder, 'genai_config.json');

  it('is the builder layout: int4 MatMulNBits (block 32) and GroupQueryAttention, no optimum files', () => {
    expect(existsSync(join(dir, 'onnx'))).toBe(false);
    expect(genai.search.past_present_share_buffer).toBe(true);
    const graph = readFileSync(join(dir, genai.model.decoder.filename)).toString('latin1');
    expect(graph).toContain('MatMulNBits');
    expect(graph).toContain('GroupQueryAttention');
  });

  it('runs its int4 graph on onnxruntime-node and gives its int4 reference answers', async () => {
    const { num_hidden_layers: layers, num_key_value_heads: kv, head_size: hs } = genai.model.decoder;
    const eos = new Set(genai.model.eos_token_id);
    const tokenizer = await AutoTokenizer.from_pretrained(folder, { local_files_only: true });
    const session = await ort.InferenceSession.create(join(dir, genai.model.decoder.filename));
    const d = readJson<Dragoman>(folder, 'dragoman.json');
    const dev = llmDev(folder);
    const reference = llmReference(folder);
    try {
      for (const i of ROWS) {
        const prompt = promptIds(tokenizer, d, dev[i]!);
        let past: Record<string, ort.Tensor> = {};
        for (let l = 0; l < layers; l++) {
          for (const k of ['key', 'value']) past[`present.${l}.${k}`] = new ort.Tensor('float32', new Float32Array(0), [1, kv, 0, hs]);
        }
        let ids = prompt;
        let total = prompt.length;
        const answer: number[] = [];
        while (answer.length < MAX_NEW_TOKENS) {
          const feeds: Record<string, ort.Tensor> = {
            input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
            attention_mask: new ort.Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
          };
          for (let l = 0; l < layers; l++) {
            for (const k of ['key', 'value']) feeds[`past_key_values.${l}.${k}`] = past[`present.${l}.${k}`]!;
          }
          const out = await session.run(feeds);
          const logits = out.logits!;
          const [, s, v] = logits.dims as [number, number, number];
          const last = (logits.data as Float32Array).subarray((s - 1) * v, s * v);
          const best = last.reduce((b, x, j) => (x > last[b]! ? j : b), 0);
          answer.push(best);
          if (eos.has(best)) break;
          past = out;
          ids = [best];
          total++;
        }
        expect(tokenizer.decode(answer, { skip_special_tokens: true })).toBe(reference[i]!.int4);
      }
    } finally {
      await session.release();
    }
  });
});
