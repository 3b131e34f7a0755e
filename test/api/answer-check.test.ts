// An LLM translator's answers are checked to be translations (docs/models.md#answers-checked): on a real server with
// the tiny LLM fixture, German text sent as English makes the model answer in English (it reads the text, not the
// prompt's language names), which is no translation into German. With the pair's NMT model installed that answer is
// replaced by the NMT model's, and without one it is kept and marked; charged once either way. The check itself is
// run on the real detector, and over a set of instruction-like sentences no unmarked answer fails it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDetector } from '../../src/detect/index.ts';
import type { LanguageDetector } from '../../src/detect/types.ts';
import { resolveLanguage } from '../../src/languages/catalog.ts';
import { checkAnswer } from '../../src/service/output-check.ts';
import { linkModel, tempDir } from '../engine/helpers.ts';
import { startTestApp, type TestApp } from './helpers.ts';

const LLM = 'tiny-qwen3-mt';
const NMT = 'tiny-marian-en-de';
/** German sentences the tiny LLM answers in English when told they are English (measured: "A man walks down the street."). */
const MISLABELLED = ['Ein Mann geht die Straße entlang.', 'Kinder spielen Fußball in einem Park.'];
const INSTRUCTION_LIKE = readFileSync(new URL('../fixtures/answer-check/instruction-like.en.txt', import.meta.url), 'utf8').trim().split('\n');

const de = resolveLanguage('de')!;
let detector: LanguageDetector;
beforeAll(async () => {
  detector = await createDetector();
});

describe('checkAnswer', () => {
  const check = (source: string, answer: string, target = de) => checkAnswer(detector, detector.languages?.(), target, source, answer);

  it('passes a German answer to a German target', () => {
    expect(check('A man is walking down the street with his dog.', 'Ein Mann geht mit seinem Hund die Straße entlang.')).toBeUndefined();
  });

  it('fails an answer in the source language, an empty one and one far longer than its source', () => {
    expect(check('A man is walking down the street with his dog.', 'A man is walking down the street with his dog.')).toBe('wrong language');
    expect(check('Ein Hund.', '  ')).toBe('empty');
    expect(check('Ein Hund läuft.', 'Ein Hund läuft. '.repeat(10))).toBe('too long');
  });

  it('does not judge the language of a short answer, nor of a target the detector does not know', () => {
    expect(check('Say OK.', 'OK, gut.')).toBeUndefined();
    const unknownToDetector = new Set([...detector.languages!()].filter((c) => c !== 'de'));
    expect(checkAnswer(detector, unknownToDetector, de, 'A man walks down the street.', 'A man walks down the street.')).toBeUndefined();
  });

  it('weighs a Chinese source by its density: an English answer four times its characters is no run-on', () => {
    const en = resolveLanguage('en')!;
    expect(checkAnswer(detector, detector.languages?.(), en, '一个男人在街上走。', 'A man is walking along the street.')).toBeUndefined();
  });
});

interface Served {
  app: TestApp;
  key: string;
  dir: ReturnType<typeof tempDir>;
}

async function serve(models: string[], env: Record<string, string> = {}): Promise<Served> {
  const dir = tempDir('dragoman-answer-check-');
  for (const m of models) linkModel(join(dir.path, m), m);
  const app = await startTestApp({ DRAGOMAN_MODELS_DIR: dir.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_BEAM: '1', ...env });
  return { app, key: (await app.key()).secret, dir };
}

const used = async (s: Served) => (await s.app.call('GET', '/v1/usage', { key: s.key })).body.data.charactersUsed as number;
const ask = (s: Served, body: Record<string, unknown>) => s.app.call('POST', '/v1/translate', { key: s.key, body: { source: 'en', target: 'de', model: 'quality', ...body } });

describe('an LLM translator with the pair\'s NMT model installed', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve([LLM, NMT]);
  });
  afterAll(async () => {
    await s.app.close();
    s.dir.remove();
  });

  it('has an answer in the wrong language translated again by the NMT model, named in the headers and the body, charged once', async () => {
    const before = await used(s);
    const r = await ask(s, { q: [MISLABELLED[0], 'A man is walking down the street.'] });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-dragoman-model')).toBe(`${LLM}, ${NMT}`);
    expect(r.headers.get('x-dragoman-answer-check')).toBe('judged=2, replaced=1, failed=0');
    const [replaced, passed] = r.body.data.translations;
    expect(replaced.check).toEqual({ judged: 1, replaced: 1, failed: 0, reasons: ['wrong language'] });
    const nmt = await ask(s, { q: MISLABELLED[0], model: NMT });
    expect(replaced.translatedText).toBe(nmt.body.data.translations[0].translatedText);
    expect(passed.check).toBeUndefined();
    expect(await used(s) - before).toBe(MISLABELLED[0]!.length + 'A man is walking down the street.'.length + MISLABELLED[0]!.length);
  });

  it('answers the same on the DeepL surface, with the check in its header', async () => {
    const r = await s.app.call('POST', '/v2/translate', {
      headers: { authorization: `DeepL-Auth-Key ${s.key}` },
      body: { text: [MISLABELLED[1]], source_lang: 'EN', target_lang: 'DE', model_type: 'quality_optimized' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-dragoman-answer-check')).toBe('judged=1, replaced=1, failed=0');
    expect(r.headers.get('x-dragoman-model')).toBe(`${LLM}, ${NMT}`);
  });

  it('leaves no answer to an instruction-like sentence that fails the check unmarked', async () => {
    const r = await ask(s, { q: INSTRUCTION_LIKE });
    expect(r.status).toBe(200);
    const header = /judged=(\d+), replaced=(\d+), failed=(\d+)/.exec(r.headers.get('x-dragoman-answer-check') ?? '');
    expect(header).not.toBeNull();
    expect(Number(header![3])).toBe(0);
    r.body.data.translations.forEach((t: { translatedText: string; check?: { replaced: number } }, i: number) => {
      if (!t.check?.replaced) expect(checkAnswer(detector, detector.languages?.(), de, INSTRUCTION_LIKE[i]!, t.translatedText)).toBeUndefined();
    });
  });
});

describe('an LLM translator alone', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve([LLM]);
  });
  afterAll(async () => {
    await s.app.close();
    s.dir.remove();
  });

  it('keeps an answer in the wrong language and marks it failed', async () => {
    const r = await ask(s, { q: MISLABELLED[1] });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-dragoman-model')).toBe(LLM);
    expect(r.headers.get('x-dragoman-answer-check')).toBe('judged=1, replaced=0, failed=1');
    const [t] = r.body.data.translations;
    expect(t.check).toEqual({ judged: 1, replaced: 0, failed: 1, reasons: ['wrong language'] });
    expect(detector.detect(t.translatedText).language).toBe('en');
  });
});

describe('DRAGOMAN_OUTPUT_CHECK=off', () => {
  it('returns the LLM translator\'s answer unchecked', async () => {
    const s = await serve([LLM, NMT], { DRAGOMAN_OUTPUT_CHECK: 'off' });
    try {
      const r = await ask(s, { q: MISLABELLED[1] });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-dragoman-model')).toBe(LLM);
      expect(r.headers.get('x-dragoman-answer-check')).toBeNull();
      expect(detector.detect(r.body.data.translations[0].translatedText).language).toBe('en');
    } finally {
      await s.app.close();
      s.dir.remove();
    }
  });
});
