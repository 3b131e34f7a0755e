// A translation memory's fuzzy matches as examples in an LLM translator's prompt, against a real server (real
// SQLite, fixture models): tiny-qwen3-mt (whose dragoman.json words examples) translates a sentence with a fuzzy
// match in the memory otherwise than without it, exactly as an engine given the same examples by hand does, whether
// or not the request asks for `matches`; exact segments still come back as stored; below the threshold nothing is
// shown; a model without the wording and an NMT model translate as without the memory; a document gets the same
// through the service.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.ts';
import { createEngine, type DragomanEngine } from '../../src/engine/index.ts';
import { readTranslatorPrompt, userContent } from '../../src/engine/model/translator-prompt.ts';
import { ModelTokenizer } from '../../src/engine/model/tokenizer.ts';
import { similarity } from '../../src/memories/index.ts';
import { MEMORY_EXAMPLES } from '../../src/service/translate.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { download, upload, waitForJob } from '../documents/jobs-client.ts';
import { linkModel, tempDir } from '../engine/helpers.ts';
import { FIXTURE_MODELS_DIR, llmDev } from '../fixture-models.ts';
import { tmx } from './fixtures.ts';

const LLM = 'tiny-qwen3-mt';
const PLAIN = 'tiny-qwen3-mt-plain';
const NMT = 'tiny-marian-en-de';
const dir = tempDir('dragoman-memory-examples-');

/** English dev sentences of the fixture, and for each a stored neighbour: the same sentence with its last word changed. */
const sentences = llmDev(LLM).filter((r) => r.src_lang === 'en' && r.ended).slice(0, 8).map((r) => r.src);
const neighbour = (s: string) => s.replace(/(\p{L}+)(\P{L}*)$/u, 'garden$2');
const stored = sentences.map((s, i) => ({ source: neighbour(s), target: `Gespeicherte Übersetzung Nummer ${i}.` }));
const EXACT = { source: 'The house is small.', target: 'Dieses Häuschen stammt aus dem Gedächtnis.' };

let t: TestApp;
let key: string;
let memory: string;
let byHand: DragomanEngine;

beforeAll(async () => {
  linkModel(join(dir.path, LLM), LLM);
  linkModel(join(dir.path, NMT), NMT);
  // A copy of the fixture whose dragoman.json declares no examples wording.
  const declared = JSON.parse(readFileSync(join(FIXTURE_MODELS_DIR, LLM, 'dragoman.json'), 'utf8')) as Record<string, unknown>;
  delete declared.examplesPrompt;
  delete declared.examplePrompt;
  linkModel(join(dir.path, PLAIN), LLM, { 'dragoman.json': JSON.stringify(declared) });
  // The answer check would put the pair's NMT model in place of a tiny model's answer: the prompt is what is tested.
  const env = { DRAGOMAN_MODELS_DIR: dir.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_BEAM: '1', DRAGOMAN_OUTPUT_CHECK: 'off' };
  t = await startTestApp(env);
  key = (await t.key({ rpm: null })).secret;
  const r = await fetch(`${t.url}/v1/memories?name=Examples`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/x-tmx+xml' }, body: tmx([EXACT, ...stored]) });
  expect(r.status).toBe(201);
  memory = ((await r.json()) as any).data.memory.id;
  // An engine of its own (its own translation cache) over the same folders, for the prompt built by hand.
  byHand = await createEngine(loadConfig({ ...env, DRAGOMAN_WORKERS: '1' }));
});

afterAll(async () => {
  await byHand?.close();
  await t?.close();
  dir.remove();
});

async function translate(body: Record<string, unknown>): Promise<any[]> {
  const r = await t.call('POST', '/v1/translate', { key, body: { source: 'en', target: 'de', ...body } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.translations;
}
const texts = (out: any[]) => out.map((x) => x.translatedText as string);

describe('a memory\'s fuzzy matches in an LLM translator\'s prompt', () => {
  it('change tiny-qwen3-mt\'s translations exactly as the same examples given to the engine by hand', async () => {
    for (const [i, s] of sentences.entries()) expect(similarity(s, stored[i]!.source)).toBeGreaterThanOrEqual(75);
    const without = texts(await translate({ q: sentences, model: LLM }));
    const withMemory = texts(await translate({ q: sentences, model: LLM, memory }));
    expect(withMemory.filter((x, i) => x !== without[i]).length).toBeGreaterThan(sentences.length / 2);
    const hand = await byHand.translate(sentences, 'eng_Latn', 'deu_Latn', { model: { name: LLM }, examples: stored.map((e) => [e]) });
    expect(withMemory).toEqual(hand.translations);
    // Asked for `matches` as well: the same translations, and the matches reported.
    const reported = await translate({ q: sentences, model: LLM, memory, matches: true });
    expect(texts(reported)).toEqual(withMemory);
    expect(reported.map((x) => x.matches.map((m: any) => m.source))).toEqual(stored.map((e) => [e.source]));
    // Not asked for: none reported, though the model read them.
    expect((await translate({ q: sentences.slice(0, 1), model: LLM, memory }))[0].matches).toBeUndefined();
  });

  it('puts the matches in the user message the public prompt builder makes, in the model\'s wording', async () => {
    const declared = JSON.parse(readFileSync(join(FIXTURE_MODELS_DIR, LLM, 'dragoman.json'), 'utf8')) as Record<string, unknown>;
    const { prompt } = readTranslatorPrompt('dragoman.json', declared);
    const content = userContent(prompt, 'eng_Latn', 'deu_Latn', sentences[0]!, { examples: [stored[0]!] });
    expect(content).toBe(`Examples:\n${stored[0]!.source} = ${stored[0]!.target}\nTranslate from English to German:\n${sentences[0]}`);
    const tokenizer = await ModelTokenizer.load(join(FIXTURE_MODELS_DIR, LLM));
    expect(tokenizer.decode(tokenizer.chat(content, prompt.options))).toContain(`${stored[0]!.source} = ${stored[0]!.target}`);
  });

  it('leaves exact segments as stored, and shows nothing below the threshold', async () => {
    const [exact] = await translate({ q: [EXACT.source], model: LLM, memory });
    expect(exact.translatedText).toBe(EXACT.target);
    expect(exact.memory).toEqual({ segments: 1, exact: 1, characters: EXACT.source.length });
    const plain = texts(await translate({ q: sentences, model: LLM }));
    expect(texts(await translate({ q: sentences, model: LLM, memory, memoryThreshold: 100 }))).toEqual(plain);
  });

  it('reads at most the documented number of matches, the best first', async () => {
    expect(MEMORY_EXAMPLES).toBe(3);
    const many = Array.from({ length: 5 }, (_, k) => ({ source: `${sentences[0]!.replace(/\P{L}*$/u, '')} number ${k}.`, target: `Beispiel ${k}.` }));
    const r = await fetch(`${t.url}/v1/memories?name=Many`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/x-tmx+xml' }, body: tmx(many) });
    const m = ((await r.json()) as any).data.memory.id as string;
    const [out] = await translate({ q: [sentences[0]], model: LLM, memory: m, memoryThreshold: 50, matches: true });
    expect(out.matches.length).toBe(MEMORY_EXAMPLES);
    const best = out.matches.map((x: any) => ({ source: x.source, target: x.target }));
    const hand = await byHand.translate([sentences[0]!], 'eng_Latn', 'deu_Latn', { model: { name: LLM }, examples: [best] });
    expect(out.translatedText).toBe(hand.translations[0]);
  });

  it('leaves a model without the wording and an NMT model translating as without the memory', async () => {
    for (const model of [PLAIN, NMT]) {
      const without = await translate({ q: sentences, model });
      const withMemory = await translate({ q: sentences, model, memory, matches: true });
      expect(texts(withMemory)).toEqual(texts(without));
      expect(withMemory.every((x) => x.matches.length === 1)).toBe(true);
    }
  });

  it('reach the prompt of each sentence of a document translated with the memory', async () => {
    const up = await upload(t.url, key, 'examples.txt', `${sentences[1]}\n\n${EXACT.source}\n`, { target: 'de', source: 'en', model: LLM, memory });
    expect(up.status, JSON.stringify(up.body)).toBe(202);
    const job = await waitForJob(t.url, key, up.body.data.document.id);
    expect(job.status, JSON.stringify(job.error)).toBe('done');
    const text = (await download(t.url, key, job.id)).bytes.toString('utf8');
    const [withMemory] = texts(await translate({ q: [sentences[1]], model: LLM, memory }));
    const [without] = texts(await translate({ q: [sentences[1]], model: LLM }));
    expect(withMemory).not.toBe(without);
    expect(text).toBe(`${withMemory}\n\n${EXACT.target}\n`);
  });
});
