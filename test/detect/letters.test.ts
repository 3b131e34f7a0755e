// Letter inventories (src/detect/letters.ts): a letter a variety never writes counts against it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Classifier } from '../../src/detect/classify.ts';
import { MODEL_URL } from '../../src/detect/index.ts';
import { distinctLetters, LetterCheck, letterInventory } from '../../src/detect/letters.ts';
import { LidModel } from '../../src/detect/model.ts';

const model = LidModel.decode(readFileSync(MODEL_URL));
const classes = model.header.classes;

describe('letter inventories', () => {
  it('are lower-cased letters and marks, without Han, kana or Hangul', () => {
    expect([...distinctLetters('Ça va? 123 Ça!')].sort()).toEqual(['a', 'v', 'ç']);
    expect([...distinctLetters('東京タワーは 서울 ok')].sort()).toEqual(['k', 'o']); // ー is script Common, used by kana
    expect(letterInventory(['Ab', 'bC', 'नमस्ते'])).toBe([...'abcनमसते्'].sort().join(''));
  });

  it('are in the committed model for every variety written in an alphabet', () => {
    const inventories = model.header.letters!;
    expect(Object.keys(inventories)).toEqual(classes);
    expect(inventories.ukr_Cyrl).toContain('і');
    expect(inventories.bel_Cyrl).toContain('ў');
    expect(inventories.rus_Cyrl).not.toContain('і');
    expect(inventories.rus_Cyrl).not.toContain('ў');
    expect(inventories.pol_Latn).toContain('ł');
    expect(inventories.deu_Latn).not.toContain('ł');
  });

  it('count, per candidate, the letters of a text its inventory lacks', () => {
    const check = new LetterCheck(['a_Latn', 'b_Latn', 'c_Latn'], { a_Latn: 'abc', b_Latn: 'abcłż' });
    const missing = new Float64Array(3).fill(9);
    check.count('Żaba łabądź', [0, 1, 2], missing);
    // distinct letters ż a b ł ą d ź: a_Latn lacks ż ł ą d ź, b_Latn lacks ą d ź, c_Latn has no inventory.
    expect([...missing]).toEqual([5, 3, 0]);
  });

  it('decide a short text between close neighbours that the model alone gets wrong', () => {
    const belarusian = 'Вы забылі свой пароль?';
    const withCheck = new Classifier(model).rank(belarusian, undefined, 3)!;
    const withoutCheck = new Classifier(new LidModel({ ...model.header, letters: undefined }, model.keys, lengths(), model.postClass, model.postWeight)).rank(belarusian, undefined, 3)!;
    expect(classes[withCheck.classes[0]!]).toBe('bel_Cyrl');
    expect(classes[withoutCheck.classes[0]!]).toBe('rus_Cyrl');
  });
});

function lengths(): Uint8Array {
  const out = new Uint8Array(model.keys.length);
  for (let i = 0; i < out.length; i++) out[i] = model.starts[i + 1]! - model.starts[i]!;
  return out;
}
