// Exactness of the Marian path against the PyTorch references in dev.jsonl (fp32).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DragomanEngine } from '../../src/engine/index.ts';
import { ModelTokenizer } from '../../src/engine/model/tokenizer.ts';
import { CORE_FIXTURES, FIXTURES, engineOver, rate, readDev, type MarianDevRow } from './helpers.ts';
import { join } from 'node:path';

const enDe = readDev<MarianDevRow>('tiny-marian-en-de');
const deEn = readDev<MarianDevRow>('tiny-marian-de-en');

describe('tokenizer (tiny-marian-en-de)', () => {
  it('gives dev.jsonl src_ids and decodes greedy_ids to the greedy strings', async () => {
    const tok = await ModelTokenizer.load(join(FIXTURES, 'tiny-marian-en-de'));
    const idsOk = enDe.filter((r) => JSON.stringify(tok.encode(r.src)) === JSON.stringify(r.src_ids)).length;
    const textOk = enDe.filter((r) => tok.decode(r.greedy_ids) === r.greedy).length;
    console.log(`marian tokenizer ids ${rate(idsOk, enDe.length)}, decode ${rate(textOk, enDe.length)}`);
    expect(idsOk).toBe(enDe.length);
    expect(textOk).toBe(enDe.length);
  });
});

describe('Marian greedy and beam parity (fp32)', () => {
  let engine: DragomanEngine;
  beforeAll(async () => {
    engine = await engineOver(CORE_FIXTURES, { DRAGOMAN_CACHE_SIZE: '0' });
  });
  afterAll(() => engine.close());

  it('en->de greedy equals dev.jsonl for >= 99% of 500', async () => {
    const r = await engine.translate(enDe.map((d) => d.src), 'eng_Latn', 'deu_Latn', { beams: 1 });
    expect(r.route).toEqual(['tiny-marian-en-de']);
    const ok = r.translations.filter((t, i) => t === enDe[i]!.greedy).length;
    console.log(`tiny-marian-en-de greedy parity ${rate(ok, enDe.length)}`);
    expect(ok / enDe.length).toBeGreaterThanOrEqual(0.99);
  });

  it('de->en greedy equals dev.jsonl for >= 99% of 500', async () => {
    const r = await engine.translate(deEn.map((d) => d.src), 'deu_Latn', 'eng_Latn', { beams: 1 });
    expect(r.route).toEqual(['tiny-marian-de-en']);
    const ok = r.translations.filter((t, i) => t === deEn[i]!.greedy).length;
    console.log(`tiny-marian-de-en greedy parity ${rate(ok, deEn.length)}`);
    expect(ok / deEn.length).toBeGreaterThanOrEqual(0.99);
  });

  it('en->de beam 4 equals dev.jsonl beam4 for >= 99% of 500 (the model default num_beams is 4)', async () => {
    const r = await engine.translate(enDe.map((d) => d.src), 'eng_Latn', 'deu_Latn');
    const ok = r.translations.filter((t, i) => t === enDe[i]!.beam4).length;
    console.log(`tiny-marian-en-de beam4 parity ${rate(ok, enDe.length)}`);
    expect(ok / enDe.length).toBeGreaterThanOrEqual(0.99);
  });

  it('returns distinct n-best alternatives from the beam', async () => {
    const src = enDe.slice(0, 20).map((d) => d.src);
    const r = await engine.translate(src, 'eng_Latn', 'deu_Latn', { beams: 4, alternatives: 3 });
    expect(r.alternatives).toHaveLength(20);
    r.alternatives!.forEach((alts, i) => {
      expect(alts.length).toBeGreaterThan(0);
      expect(alts.length).toBeLessThanOrEqual(3);
      expect(new Set([r.translations[i], ...alts]).size).toBe(alts.length + 1);
    });
    // The best hypothesis is still the beam-4 reference.
    const ok = r.translations.filter((t, i) => t === enDe[i]!.beam4).length;
    expect(ok).toBeGreaterThanOrEqual(19);
  });
});
