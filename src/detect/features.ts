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
 * the number of letters seen. Hashes are FNV-1a over code points, so no substring is ever allocated.
 */
export function forEachFeature(text: string, minOrder: number, emit: (hash: number, order: number) => void): number {
  const table = charClasses();
  const lower = text.toLowerCase();
  const word: number[] = [SPACE];
  let letters = 0;
  const flush = () => {
    if (word.length === 1) return;
    word.push(SPACE);
    const n = word.length;
    for (let i = 0; i < n; i++) {
      let h = FNV_OFFSET;
      for (let k = 0; k < MAX_ORDER && i + k < n; k++) {
        h = Math.imul(h ^ word[i + k]!, FNV_PRIME) >>> 0;
        // a lone boundary space is no feature
        if (k + 1 < minOrder || (k === 0 && word[i] === SPACE)) continue;
        emit(h, k + 1);
      }
    }
    if (n - 2 <= MAX_WORD_FEATURE) {
      let h = WORD_SEED;
      for (let i = 1; i < n - 1; i++) h = Math.imul(h ^ word[i]!, FNV_PRIME) >>> 0;
      emit(h, 0);
    }
    word.length = 1;
  };
  for (const ch of lower) {
    const cp = ch.codePointAt(0)!;
    const cls = cp < table.length ? table[cp]! : NOT_LETTER;
    if (cls !== NOT_LETTER) {
      word.push(cp);
      letters++;
    } else if (isApostrophe(cp) && word.length > 1) {
      word.push(0x27);
    } else {
      flush();
    }
  }
  flush();
  return letters;
}
