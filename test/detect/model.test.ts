import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { forEachFeature } from '../../src/detect/features.ts';
import { MODEL_URL } from '../../src/detect/index.ts';
import { LidModel } from '../../src/detect/model.ts';
import { LANGUAGES } from '../../src/languages/catalog.ts';

describe('committed LID model', () => {
  const bytes = readFileSync(MODEL_URL);
  const model = LidModel.decode(bytes);

  it('has one class per catalog variety and a calibrated temperature', () => {
    expect(model.header.classes).toEqual(LANGUAGES.map((l) => l.flores));
    expect(model.header.unseen).toHaveLength(204);
    expect(model.header.bias).toHaveLength(204);
    expect(model.header.tau).toBeGreaterThan(0);
    expect(model.header.han?.Hans.length).toBeGreaterThan(100);
    expect(bytes.length).toBeLessThan(5_000_000);
  });

  it('survives an encode/decode round trip with the same scores', () => {
    const again = LidModel.decode(model.encode());
    const a = new Float64Array(204);
    const b = new Float64Array(204);
    forEachFeature('Der schnelle braune Fuchs springt über den faulen Hund.', 3, (h) => {
      model.addFeature(h, a);
      again.addFeature(h, b);
    });
    expect([...b]).toEqual([...a]);
    expect(a.some((x) => x > 0)).toBe(true);
  });

  it('finds every key it stores', () => {
    const sample = [0, 1, 2, Math.floor(model.featureCount / 2), model.featureCount - 1];
    for (const i of sample) expect(model.find(model.keys[i]!)).toBe(i);
  });
});
