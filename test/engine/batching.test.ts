// Batching must not change results (fp32, padding masked), concurrent callers get their own results in order,
// and the cache returns what the model returned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitPieces, MAX_CACHED_CHARS, type BatchEvent, type DragomanEngine } from '../../src/engine/index.ts';
import { CORE_FIXTURES, engineOver, oneModelDir, readDev, type MarianDevRow } from './helpers.ts';

const dev = readDev<MarianDevRow>('tiny-marian-en-de');
// Short and long sentences mixed, so batches carry real padding.
const sample = [...dev.slice(0, 24), ...dev.filter((d) => d.src_ids.length > 30).slice(0, 8)].map((d) => d.src);

describe('dynamic batching (fp32, greedy)', () => {
  let engine: DragomanEngine;
  const batches: BatchEvent[] = [];
  beforeAll(async () => {
    // English to German only: the one model, alone in its folder.
    engine = await engineOver(oneModelDir('tiny-marian-en-de'), { DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_BEAM: '1', DRAGOMAN_BATCH_WAIT_MS: '20' });
    engine.events.on('batch', (e: BatchEvent) => batches.push(e));
  });
  afterAll(() => engine.close());

  it('a batch gives exactly the strings of each sentence alone', async () => {
    const alone: string[] = [];
    for (const s of sample) alone.push((await engine.translate([s], 'eng_Latn', 'deu_Latn')).translations[0]!);
    batches.length = 0;
    const together = await engine.translate(sample, 'eng_Latn', 'deu_Latn');
    expect(together.translations).toEqual(alone);
    expect(Math.max(...batches.map((b) => b.rows))).toBeGreaterThan(1);
  });

  it('16 concurrent requests give the results of the same requests made one after another', async () => {
    const requests = Array.from({ length: 16 }, (_, i) => dev.slice(100 + 3 * i, 100 + 3 * i + 1 + (i % 3)).map((d) => d.src));
    const sequential: string[][] = [];
    for (const q of requests) sequential.push((await engine.translate(q, 'eng_Latn', 'deu_Latn')).translations);
    batches.length = 0;
    const concurrent = await Promise.all(requests.map((q) => engine.translate(q, 'eng_Latn', 'deu_Latn')));
    expect(concurrent.map((r) => r.translations)).toEqual(sequential);
    // They really were batched together, not run one by one.
    expect(batches.length).toBeLessThan(16);
    expect(Math.max(...batches.map((b) => b.rows))).toBeGreaterThan(4);
  });

  it('beam search batches equal beam search alone', async () => {
    const few = sample.slice(20, 28);
    const alone: string[] = [];
    for (const s of few) alone.push((await engine.translate([s], 'eng_Latn', 'deu_Latn', { beams: 4 })).translations[0]!);
    const together = await engine.translate(few, 'eng_Latn', 'deu_Latn', { beams: 4 });
    expect(together.translations).toEqual(alone);
  });

  it('keeps empty and whitespace-only segments out of the model and in their place', async () => {
    batches.length = 0;
    const r = await engine.translate(['', sample[0]!, '   ', sample[0]!], 'eng_Latn', 'deu_Latn');
    expect(r.translations[0]).toBe('');
    expect(r.translations[2]).toBe('');
    expect(r.translations[1]).toBe(r.translations[3]);
    expect(r.translations[1]!.length).toBeGreaterThan(0);
    expect(batches.reduce((s, b) => s + b.rows, 0)).toBe(1); // one distinct sentence sent once
  });

  it('returns a segment without letters (number, symbols, emoji, invisible marks) as it is, without the model', async () => {
    batches.length = 0;
    const letterless = ['42', '3.14', '!!!', '🙂', '1.', '\u200b', '— 12:30 —'];
    const r = await engine.translate(letterless, 'eng_Latn', 'deu_Latn');
    expect(r.translations).toEqual(letterless);
    expect(batches).toHaveLength(0);
  });

  it('a segment already being translated for one request is shared with a concurrent one, not run twice', async () => {
    batches.length = 0;
    const s = dev[400]!.src;
    const [a, b] = await Promise.all([
      engine.translate([s], 'eng_Latn', 'deu_Latn'),
      engine.translate([dev[401]!.src, s], 'eng_Latn', 'deu_Latn'),
    ]);
    expect(b.translations[1]).toBe(a.translations[0]);
    expect(batches.reduce((n, e) => n + e.rows, 0)).toBe(2); // s once, dev[401] once
  });
});

describe('inputs longer than the model allows', () => {
  let engine: DragomanEngine;
  beforeAll(async () => {
    engine = await engineOver(CORE_FIXTURES, { DRAGOMAN_BEAM: '1' });
  });
  afterAll(() => engine.close());

  it('cuts a sentence beyond the position table (512) into pieces instead of failing the batch', async () => {
    const long = Array.from({ length: 700 }, (_, i) => (i % 2 ? 'dog' : 'the')).join(' ');
    const short = dev[0]!.src;
    const r = await engine.translate([long, short], 'eng_Latn', 'deu_Latn');
    expect(r.translations[0]!.length).toBeGreaterThan(0);
    expect(r.translations[1]).toBe(dev[0]!.greedy);
  });

  it('cuts a very long text into chunks first, so each character is encoded a few times, not once per halving', () => {
    let encoded = 0;
    const encode = (t: string) => {
      encoded += t.length;
      return [...[...t].map(() => 7), 0];
    };
    for (const text of ['a'.repeat(100_000), Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(' ')]) {
      encoded = 0;
      const pieces = fitPieces(text, encode, 512);
      expect(pieces.every((p) => p.ids.length <= 512)).toBe(true);
      expect(pieces.map((p) => p.text).join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
      // One id per character (the worst case) still halves 2048-character chunks down to 256: 4-5 encodings each,
      // where halving the whole 100,000 characters took 9.
      expect(encoded).toBeLessThanOrEqual(5 * text.length);
    }
  });

  it('splits at whitespace nearest the middle until every piece fits', () => {
    const encode = (t: string) => [...t.split(' ').map(() => 7), 0];
    const pieces = fitPieces('a b c d e f g h i j', encode, 4);
    expect(pieces.map((p) => p.text)).toEqual(['a b', 'c d e', 'f g', 'h i j']);
    expect(pieces.every((p) => p.ids.length <= 4)).toBe(true);
  });
});

describe('translation cache', () => {
  let engine: DragomanEngine;
  beforeAll(async () => {
    engine = await engineOver(CORE_FIXTURES, { DRAGOMAN_CACHE_SIZE: '2', DRAGOMAN_BEAM: '1' });
  });
  afterAll(() => engine.close());

  it('serves a repeated segment from the cache with the same text, keyed by beam size, bounded in size', async () => {
    const [a, b, c] = dev.slice(0, 3).map((d) => d.src);
    const first = await engine.translate([a!], 'eng_Latn', 'deu_Latn');
    let batches = 0;
    engine.events.on('batch', () => batches++);
    const again = await engine.translate([a!], 'eng_Latn', 'deu_Latn');
    expect(again.translations).toEqual(first.translations);
    expect(batches).toBe(0);
    expect(engine.cacheStats().hits).toBe(1);
    await engine.translate([a!], 'eng_Latn', 'deu_Latn', { beams: 4 }); // other settings: not a hit
    expect(batches).toBe(1);
    await engine.translate([b!, c!], 'eng_Latn', 'deu_Latn');
    expect(engine.cacheStats().size).toBe(2);
  });

  it('does not keep a segment longer than MAX_CACHED_CHARS (it would rarely come again and costs memory)', async () => {
    const long = Array.from({ length: Math.ceil(MAX_CACHED_CHARS / 8) + 1 }, () => 'The dog.').join(' ');
    const sizeBefore = engine.cacheStats().size;
    const hitsBefore = engine.cacheStats().hits;
    await engine.translate([long], 'eng_Latn', 'deu_Latn');
    await engine.translate([long], 'eng_Latn', 'deu_Latn');
    expect(engine.cacheStats().hits).toBe(hitsBefore);
    expect(engine.cacheStats().size).toBe(sizeBefore);
  });
});
