// Text -> hashed features, shared by the trainer (scripts/train-lid.ts) and the detector so both see the same thing.
// Features: character 1..5-grams inside each word padded with spaces (" word "), plus the whole word.
// Words are runs of letters/marks (and apostrophes inside them), lowercased; digits and punctuation separate words.
import { charClasses, NOT_LETTER } from './script.ts';

export const MAX_ORDER = 5;
const MAX_WORD_FEATURE = 24; // longer "words" (unsegmented CJK/Thai runs) give n-grams only
const SPACE = 0x20;
const WORD_SEED = 0x9e3779b9;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

function isApostrophe(cp: number): boolean {
  return cp === 0x27 || cp === 0x2019 || cp === 0x2bc || cp === 0x2bb;
}

/**
 * Calls `emit(hash, order)` for every feature of `text` (order minOrder..5 for n-grams, 0 for whole words) and returns
 * the number of letters seen. Hashes are FNV-1a over code points, so no substring is ever allocated. `emit`
 * returning true stops the walk (the detector stops once the answer can no longer change).
 */
// Code points of the current word, with a leading and a trailing space; grown when a word is longer.
let word = new Int32Array(256);

export function forEachFeature(
  text: string,
  minOrder: number,
  emit: (hash: number, order: number) => boolean | void,
): number {
  const table = charClasses();
  const lower = text.toLowerCase();
  let length = 1; // word[0] is the leading space
  word[0] = SPACE;
  let letters = 0;
  let stopped = false;
  const flush = (): void => {
    if (length === 1 || stopped) return;
    word[length++] = SPACE;
    const n = length;
    for (let i = 0; i < n; i++) {
      let h = FNV_OFFSET;
      for (let k = 0; k < MAX_ORDER && i + k < n; k++) {
        h = Math.imul(h ^ word[i + k]!, FNV_PRIME) >>> 0;
        // a lone boundary space is no feature
        if (k + 1 < minOrder || (k === 0 && word[i] === SPACE)) continue;
        if (emit(h, k + 1) === true) stopped = true;
      }
    }
    if (n - 2 <= MAX_WORD_FEATURE) {
      let h = WORD_SEED;
      for (let i = 1; i < n - 1; i++) h = Math.imul(h ^ word[i]!, FNV_PRIME) >>> 0;
      if (emit(h, 0) === true) stopped = true;
    }
    length = 1;
  };
  const end = lower.length;
  for (let i = 0; i < end && !stopped; i++) {
    let cp = lower.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < end) {
      const low = lower.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = ((cp - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
        i++;
      }
    }
    const cls = cp < table.length ? table[cp]! : NOT_LETTER;
    const joins = cls !== NOT_LETTER || (isApostrophe(cp) && length > 1);
    if (!joins) {
      flush();
      continue;
    }
    if (length + 2 > word.length) {
      const grown = new Int32Array(word.length * 2);
      grown.set(word);
      word = grown;
    }
    if (cls !== NOT_LETTER) {
      word[length++] = cp;
      letters++;
    } else {
      word[length++] = 0x27;
    }
  }
  flush();
  return letters;
}
