// Glossary terms in an LLM translator's prompt, through the service on tiny-qwen3-mt (its dragoman.json words
// terminology): the terms reach the prompt (the prompt alone changes the translation), the translation cache keeps a
// sentence translated with its terms apart from the same sentence without them, and with the prompt and constrained
// decoding together (the default) every target term comes out; terms past the prompt's bound are left out of it,
// never refused; a model without the wording keeps them by decoding.
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.ts';
import { ModelTokenizer } from '../../src/engine/model/tokenizer.ts';
import { createDetector } from '../../src/detect/index.ts';
import { createEngine, type DragomanEngine } from '../../src/engine/index.ts';
import { GlossaryBook } from '../../src/glossaries/book.ts';
import { createService, type Service, type TranslateOptions } from '../../src/service/index.ts';
import { planHtml } from '../../src/text/html/index.ts';
import { planText } from '../../src/text/segment.ts';
import { FIXTURE_MODELS_DIR } from '../fixture-models.ts';
import { tempDir } from '../engine/helpers.ts';
import { sqliteGlossaryStore } from '../stores.ts';
import { devGlossary, devRows, splitByTerms } from './dev-glossary.ts';

const LLM = 'tiny-qwen3-mt';
const dir = tempDir('dragoman-prompt-terms-');
let engine: DragomanEngine;
let service: Service;
let book: GlossaryBook;
const rows = devRows();
const entries = devGlossary(rows);
const sample = splitByTerms(rows, entries).withTerms.slice(0, 30);
let useDev: TranslateOptions;

beforeAll(async () => {
  // The fixture as it is, and a copy whose dragoman.json declares no terminology wording.
  symlinkSync(join(FIXTURE_MODELS_DIR, LLM), join(dir.path, LLM));
  const plain = join(dir.path, 'tiny-qwen3-mt-plain');
  mkdirSync(plain);
  for (const f of readdirSync(join(FIXTURE_MODELS_DIR, LLM))) {
    if (f !== 'dragoman.json') symlinkSync(join(FIXTURE_MODELS_DIR, LLM, f), join(plain, f));
  }
  const declared = JSON.parse(readFileSync(join(FIXTURE_MODELS_DIR, LLM, 'dragoman.json'), 'utf8')) as Record<string, unknown>;
  delete declared.terminologyPrompt;
  delete declared.termPrompt;
  writeFileSync(join(plain, 'dragoman.json'), JSON.stringify(declared));
  engine = await createEngine(loadConfig({ DRAGOMAN_MODELS_DIR: dir.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_WORKERS: '1', DRAGOMAN_BEAM: '1' }));
  book = new GlossaryBook(sqliteGlossaryStore(':memory:'), { maxEntries: 10_000, maxTermChars: 200, perKey: 100 });
  service = createService({
    config: { maxStrings: 128, maxChars: 100_000 }, engine, detector: await createDetector({ secondOpinion: false }),
    planners: { text: planText, html: planHtml }, glossaries: book, keepSpans: true,
  });
  const g = await book.create('key-1', 'dev', [{ source: 'en', target: 'de', entries: entries.map((e) => [e.source, e.target]) }]);
  useDev = { glossary: { owner: 'key-1', id: g.id } };
});

afterAll(async () => {
  await engine?.close();
  dir.remove();
});

async function translate(model: string, options: TranslateOptions = {}): Promise<string[]> {
  const r = await service.translate(service.prepareTranslate({ q: sample.map((s) => s.row.src), source: 'en', target: 'de' }, { ...options, model: { name: model } }));
  expect(r.routes).toEqual([[model]]);
  return r.translations.map((t) => t.translatedText);
}

const words = (text: string) => text.split(/[^\p{L}\p{N}'-]+/u);
const misses = (out: string[]) => sample.filter((s, i) => s.targets.some((t) => !words(out[i]!).includes(t)));

describe('glossary terms in an LLM translator\'s prompt', () => {
  it('reach the prompt, and the cache keeps a sentence with its terms apart from the same sentence without', async () => {
    const plain = await translate(LLM);
    const prompted = await translate(LLM, { ...useDev, terms: 'prompt' });
    expect(prompted.filter((t, i) => t !== plain[i]).length).toBeGreaterThan(sample.length / 2);
    // Asked again, each comes from the cache as it was made.
    expect(await translate(LLM)).toEqual(plain);
    expect(await translate(LLM, { ...useDev, terms: 'prompt' })).toEqual(prompted);
  });

  it('are all kept with the prompt and constrained decoding together, as with decoding alone', async () => {
    expect(misses(await translate(LLM, useDev))).toEqual([]);
    expect(misses(await translate(LLM, { ...useDev, terms: 'decoding' }))).toEqual([]);
    expect(misses(await translate(LLM))).not.toEqual([]);
  });

  it('go into the prompt as many as fit its bound, never refusing the sentence; decoding keeps them all', async () => {
    const terms: [string, string][] = [['man', 'Mann'], ['woman', 'Frau'], ['dog', 'Hund'], ['cat', 'Katze'], ['horse', 'Pferd'], ['ball', 'Ball'], ['hat', 'Hut'], ['boat', 'Boot']];
    const g = await book.create('key-1', 'many', [{ source: 'en', target: 'de', entries: terms }]);
    const sentence = 'A man and a woman with a dog, a cat, a horse, a ball, a hat and a boat.';
    const many = { glossary: { owner: 'key-1', id: g.id } };
    const ask = async (options: TranslateOptions) => (await service.translate(service.prepareTranslate({ q: sentence, source: 'en', target: 'de' }, { ...options, model: { name: LLM } }))).translations[0]!.translatedText;
    // Eight term lines take more than the 64 tokens tiny-qwen3-mt's prompt may add: some are left out, none refused.
    const tokenizer = await ModelTokenizer.load(join(FIXTURE_MODELS_DIR, LLM));
    expect(tokenizer.textIds(`Terms: ${terms.map(([a, b]) => `${a} = ${b};`).join('\n')}\n`).length).toBeGreaterThan(64);
    expect(await ask({ ...many, terms: 'prompt' })).not.toBe(await ask({}));
    const both = await ask(many);
    expect(terms.filter(([, t]) => !words(both).includes(t!))).toEqual([]);
  });

  it('are kept by decoding alone for a model without the wording, which translates as the default asks', async () => {
    const out = await translate('tiny-qwen3-mt-plain', useDev);
    expect(misses(out)).toEqual([]);
    // Without a wording the prompt has no terms: the same as the fixture with decoding alone.
    expect(out).toEqual(await translate(LLM, { ...useDev, terms: 'decoding' }));
    expect(await translate('tiny-qwen3-mt-plain', { ...useDev, terms: 'prompt' })).toEqual(out);
  });
});
