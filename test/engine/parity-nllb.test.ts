// Exactness of the NLLB path (language token framing, forced target token, </s> start) on tiny-nllb, fp32.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { DragomanEngine } from '../../src/engine/index.ts';
import { engineOver, linkModel, rate, readDev, tempDir, type NllbDevRow } from './helpers.ts';

const rows = readDev<NllbDevRow>('tiny-nllb');
// The acceptance excludes runaway references: longer than three times the source plus 20 characters.
const runaway = (r: NllbDevRow) => r.greedy.length > 3 * r.src.length + 20;

describe('NLLB greedy parity (tiny-nllb only, fp32)', () => {
  const dir = tempDir();
  let engine: DragomanEngine;
  beforeAll(async () => {
    linkModel(join(dir.path, 'tiny-nllb'), 'tiny-nllb');
    engine = await engineOver(dir.path, { DRAGOMAN_BEAM: '1' });
  });
  afterAll(async () => {
    await engine.close();
    dir.remove();
  });

  const directions = [...new Set(rows.map((r) => `${r.src_lang}>${r.tgt_lang}`))];
  it('has the six trained directions', () => expect(directions).toHaveLength(6));

  for (const direction of directions) {
    it(`${direction}: greedy equals dev.jsonl for >= 99% of non-runaway rows`, async () => {
      const [source, target] = direction.split('>') as [string, string];
      const dirRows = rows.filter((r) => r.src_lang === source && r.tgt_lang === target);
      const r = await engine.translate(dirRows.map((d) => d.src), source, target);
      expect(r.route).toEqual(['tiny-nllb']);
      let ok = 0;
      let n = 0;
      dirRows.forEach((d, i) => {
        if (runaway(d)) return;
        n++;
        if (r.translations[i] === d.greedy) ok++;
      });
      console.log(`tiny-nllb ${direction} greedy parity ${rate(ok, n)} (${dirRows.length - n} runaway rows excluded)`);
      expect(ok / n).toBeGreaterThanOrEqual(0.99);
    });
  }

  it('translates into a language the model has a token for but never learned (some text, no error)', async () => {
    const r = await engine.translate(['A man is walking.'], 'eng_Latn', 'jpn_Jpan');
    expect(r.route).toEqual(['tiny-nllb']);
    expect(typeof r.translations[0]).toBe('string');
  });
});
