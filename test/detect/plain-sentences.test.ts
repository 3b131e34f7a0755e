// Plain everyday sentences of 5-10 words in English, German, French and Spanish (plain-sentences.tsv, written for
// this test, not from FLORES) are detected right and called reliable; the agreement of fastText's opinion
// (src/detect/second-opinion.ts) is what makes the weakest of them reliable, and it never makes a wrong answer
// reliable where fastText cannot tell the candidates apart.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDetector, type LanguageDetector } from '../../src/detect/index.ts';

const rows = readFileSync(new URL('plain-sentences.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l !== '' && !l.startsWith('#'))
  .map((l) => l.split('\t') as [string, string]);

let detector: LanguageDetector;
let alone: LanguageDetector;
beforeAll(async () => {
  [detector, alone] = await Promise.all([createDetector(), createDetector({ secondOpinion: false })]);
});

describe('plain sentences of 5-10 words', () => {
  it('the file holds 5-10-word sentences in the four languages', () => {
    expect(new Set(rows.map(([code]) => code))).toEqual(new Set(['en', 'de', 'fr', 'es']));
    for (const [, text] of rows) {
      const words = text.split(/\s+/).filter((w) => /\p{L}/u.test(w)).length;
      expect(words, text).toBeGreaterThanOrEqual(5);
      expect(words, text).toBeLessThanOrEqual(10);
    }
  });

  it.each(rows)('%s: %s is detected right and reliable', (code, text) => {
    const d = detector.detect(text);
    expect(d.language).toBe(code);
    expect(d.isReliable, `${code} ${d.confidence}`).toBe(true);
    expect(d.confidence).toBeGreaterThanOrEqual(0.8);
  });

  it('"The cat is looking at the dog." is unsure to our model alone and reliable once fastText agrees', () => {
    const text = 'The cat is looking at the dog.';
    expect(alone.detect(text)).toMatchObject({ language: 'en', isReliable: false });
    const d = detector.detect(text);
    expect(d).toMatchObject({ language: 'en', isReliable: true });
    // Still a distribution: best first, summing to at most 1.
    expect(d.candidates.reduce((a, c) => a + c.confidence, 0)).toBeLessThanOrEqual(1.0001);
    for (let i = 1; i < d.candidates.length; i++) expect(d.candidates[i]!.confidence).toBeLessThanOrEqual(d.candidates[i - 1]!.confidence);
  });

  it('single words many languages share stay unsure', () => {
    for (const word of ['Hello', 'Ciao', 'Hotel', 'Taxi']) expect(detector.detect(word).isReliable, word).toBe(false);
  });
});
