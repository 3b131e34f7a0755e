// A decoder-only LLM translator behind every surface, on a real server: /v1/translate and the official deepl-node
// client give the model's own answers (dev.jsonl: PyTorch's, which transformers.js gives too), a direct OPUS-MT pair
// still wins the pair both serve, X-Dragoman-Model names the LLM, HTML keeps its tags, every glossary term comes out,
// characters are metered, and a folder without its dragoman.json is refused with the reason.
import * as deepl from 'deepl-node';
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanModels } from '../../src/engine/model/registry.ts';
import { FLOAT, GRAPH, INT64, concat, lenField, modelBytes, nodeField, tensorInfoField } from '../../src/engine/model/onnx-proto.ts';
import { FIXTURES, engineOver, linkModel, tempDir } from '../engine/helpers.ts';
import { llmDev } from '../fixture-models.ts';
import { devGlossary, devRows, splitByTerms } from '../glossaries/dev-glossary.ts';
import { startTestApp, type TestApp } from './helpers.ts';

const LLM = 'tiny-qwen3-mt';
const dev = llmDev(LLM);
const deEn = dev.filter((r) => r.src_lang === 'de' && r.ended).slice(0, 6);

let t: TestApp;
let key: string;
const dir = tempDir('dragoman-llm-');

beforeAll(async () => {
  linkModel(join(dir.path, LLM), LLM);
  linkModel(join(dir.path, 'tiny-marian-en-de'), 'tiny-marian-en-de');
  t = await startTestApp({ DRAGOMAN_MODELS_DIR: dir.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_BEAM: '1' });
  key = (await t.key()).secret;
});

afterAll(async () => {
  await t.close();
  dir.remove();
});

const translate = (body: Record<string, unknown>) => t.call('POST', '/v1/translate', { key, body });

describe('an LLM translator over HTTP', () => {
  it('answers /v1/translate with the model\'s own translations, naming it in X-Dragoman-Model', async () => {
    const r = await translate({ q: deEn.map((d) => d.src), source: 'de', target: 'en' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-dragoman-model')).toBe(LLM);
    expect(r.body.data.translations.map((x: { translatedText: string }) => x.translatedText)).toEqual(deEn.map((d) => d.output));
  });

  it('leaves a pair a direct OPUS-MT model serves to that model', async () => {
    const r = await translate({ q: 'A man is walking.', source: 'en', target: 'de' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-dragoman-model')).toBe('tiny-marian-en-de');
    const languages = await t.call('GET', '/v1/languages', { key });
    expect(languages.status).toBe(200);
  });

  it('serves the official DeepL client with the same answers, and meters the characters', async () => {
    const client = new deepl.DeepLClient(key, { serverUrl: t.url, maxRetries: 0, sendPlatformInfo: false });
    const before = (await client.getUsage()).character?.count ?? 0;
    const out = await client.translateText(deEn.slice(0, 3).map((d) => d.src), 'de', 'en-US');
    expect(out.map((o) => o.text)).toEqual(deEn.slice(0, 3).map((d) => d.output));
    const after = (await client.getUsage()).character?.count ?? 0;
    expect(after - before).toBe(deEn.slice(0, 3).reduce((n, d) => n + d.src.length, 0));
  });

  it('keeps HTML markup around the translated text', async () => {
    const r = await translate({ q: `<p><b>${deEn[0]!.src}</b></p>`, source: 'de', target: 'en', format: 'html' });
    expect(r.status).toBe(200);
    const html: string = r.body.data.translations[0].translatedText;
    expect(html).toMatch(/^<p><b>.+<\/b><\/p>$/);
  });

  it('puts a glossary\'s term in the answer (constrained decoding)', async () => {
    const made = await t.call('POST', '/v1/glossaries', { key, body: { name: 'terms', source: 'de', target: 'en', entries: [{ source: 'Mann', target: 'gentleman' }] } });
    expect(made.status).toBe(201);
    const src = deEn.find((d) => /\bMann\b/.test(d.src))?.src ?? 'Ein Mann geht auf der Straße.';
    const r = await translate({ q: src, source: 'de', target: 'en', glossary: made.body.data.glossary.id });
    expect(r.status).toBe(200);
    expect(r.body.data.translations[0].translatedText).toContain('gentleman');
  });

  it('keeps every glossary term of 40 sentences, the terms in its prompt and in decoding', async () => {
    const rows = devRows();
    const entries = devGlossary(rows);
    const sample = splitByTerms(rows, entries).withTerms.slice(0, 40);
    const made = await t.call('POST', '/v1/glossaries', { key, body: { name: 'dev', source: 'en', target: 'de', entries } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const r = await translate({ q: sample.map((s) => s.row.src), source: 'en', target: 'de', model: 'quality', glossary: made.body.data.glossary.id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.headers.get('x-dragoman-model')).toBe(LLM);
    const out: string[] = r.body.data.translations.map((x: { translatedText: string }) => x.translatedText);
    const words = (text: string) => text.split(/[^\p{L}\p{N}'-]+/u);
    expect(sample.filter((s, i) => s.targets.some((term) => !words(out[i]!).includes(term)))).toEqual([]);
  });
});

describe('an LLM translator\'s folder', () => {
  it('is refused without dragoman.json, saying what it lacks', async () => {
    const bare = tempDir('dragoman-llm-bare-');
    try {
      linkModel(join(bare.path, 'qwen-no-prompt'), LLM);
      rmSync(join(bare.path, 'qwen-no-prompt', 'dragoman.json'));
      const [info] = await scanModels(bare.path, 'auto');
      expect(info).toMatchObject({ status: 'incomplete', family: 'qwen3' });
      expect(info!.problem).toMatch(/dragoman\.json is missing.*prompt and languages/);
    } finally {
      bare.remove();
    }
  });

  it('is refused when its graph needs an operator onnxruntime\'s CPU provider lacks, naming the operator', async () => {
    const odd = tempDir('dragoman-llm-op-');
    const folder = join(odd.path, 'qwen-odd-op');
    try {
      mkdirSync(join(folder, 'onnx'), { recursive: true });
      for (const f of readdirSync(join(FIXTURES, LLM))) if (f !== 'onnx') symlinkSync(join(FIXTURES, LLM, f), join(folder, f));
      writeFileSync(join(folder, 'onnx', 'model.onnx'), modelBytes(concat([
        nodeField('FlashDecodeAttention', ['input_ids'], ['logits'], 'attention'),
        lenField(GRAPH.name, 'odd'),
        tensorInfoField(GRAPH.input, 'input_ids', INT64, ['batch', 'seq']),
        tensorInfoField(GRAPH.output, 'logits', FLOAT, ['batch', 'seq', 'vocab']),
      ]), 17));
      const engine = await engineOver(odd.path);
      try {
        await expect(engine.translate(['Ein Hund.'], 'deu_Latn', 'eng_Latn')).rejects.toThrow();
        const info = engine.models().find((m) => m.name === 'qwen-odd-op')!;
        expect(info.status).toBe('corrupt');
        expect(info.problem).toMatch(/FlashDecodeAttention/);
      } finally {
        await engine.close();
      }
    } finally {
      odd.remove();
    }
  });

  it('runs the smallest files it has under DRAGOMAN_PRECISION=auto', async () => {
    const info = (await scanModels(dir.path, 'auto')).find((m) => m.name === LLM);
    expect(info).toMatchObject({ status: 'ok', precision: 'int8' });
    expect((await scanModels(dir.path, 'fp32')).find((m) => m.name === LLM)).toMatchObject({ status: 'ok', precision: 'fp32' });
  });
});
