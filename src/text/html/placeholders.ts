// Untranslated inline elements that a reader reads as words of the sentence (`<code>bob</code>`, a
// `translate="no"` name) are shown to the engine as a placeholder word, so it translates a whole sentence
// ("Hello X, look at this picture!") rather than one with a hole ("Hello , look at this picture!"). The
// element's own text is not used: a model may translate it ("sleeps" → "schläft"), and the element would
// then appear twice. Placeholders are capital X's ("X", or "X1", "X2"… for several in one sentence), which
// every tokenizer keeps as a word and real models copy like a name; when the translation has one, the element
// goes exactly there. When the model drops or changes it (the tiny test models always do), the element is
// placed by the positional heuristic of align.ts, and nothing of the placeholder is left in the output.
import { tokenize } from './align.ts';

/** Names for `count` placeholders in `sentence`, none of which occurs in it as a word (any case). */
export function placeholderNames(sentence: string, count: number): string[] {
  if (count === 0) return [];
  const words = new Set(tokenize(sentence).map((t) => sentence.slice(t.start, t.end).toLowerCase()));
  if (count === 1 && !words.has('x')) return ['X'];
  for (let first = 1; ; first += count) {
    const names = Array.from({ length: count }, (_, i) => `X${first + i}`);
    if (!names.some((n) => words.has(n.toLowerCase()))) return names;
  }
}

export interface CutTranslation {
  /** The translation with every occurrence of a placeholder taken out (its spaces stay). */
  text: string;
  /** Per placeholder: the offset in `text` where its element goes, or undefined (not found, or out of order). */
  at: (number | undefined)[];
}

/**
 * Takes the placeholders out of a translation. A placeholder is a whole word of the translation, matched
 * case-sensitively if it occurs so, else in any case. Each placeholder takes its first occurrence after the
 * previous placeholder's (inline tags keep their source order); extra copies are removed too.
 */
export function cutPlaceholders(translation: string, names: readonly (string | undefined)[]): CutTranslation {
  const tokens = tokenize(translation);
  const firstWith = new Map<string, number>();
  names.forEach((name, i) => {
    if (name !== undefined && !firstWith.has(name)) firstWith.set(name, i);
  });
  // The translation's tokens by text, as written and in lower case: one pass, however many placeholders.
  const asWritten = new Map<string, typeof tokens>();
  const lowerCase = new Map<string, typeof tokens>();
  for (const t of tokens) {
    const word = translation.slice(t.start, t.end);
    for (const [map, key] of [[asWritten, word], [lowerCase, word.toLowerCase()]] as const) {
      const list = map.get(key);
      if (list) list.push(t);
      else map.set(key, [t]);
    }
  }
  const occurrences = names.map((name, i) => {
    if (name === undefined || firstWith.get(name)! < i) return [];
    return asWritten.get(name) ?? lowerCase.get(name.toLowerCase()) ?? [];
  });
  const removed = occurrences.flat().sort((a, b) => a.start - b.start);
  const chosen: (number | undefined)[] = [];
  let after = -1;
  occurrences.forEach((list, i) => {
    const name = names[i];
    const first = name === undefined ? i : firstWith.get(name)!;
    // Adjacent tokens share a name: they go where the first of them goes.
    if (first < i) return void chosen.push(chosen[first]);
    const hit = list.find((t) => t.start > after);
    chosen.push(hit?.start);
    if (hit) after = hit.start;
  });
  // Offsets in the cut text: an occurrence's start moves left by the length of everything removed before it.
  let text = '';
  let cursor = 0;
  const shift = new Map<number, number>();
  const kept = new Set(chosen);
  for (const t of removed) {
    if (t.start < cursor) continue; // the same word found for two names (impossible with distinct names)
    text += translation.slice(cursor, t.start);
    shift.set(t.start, text.length);
    cursor = t.end;
    // An extra copy between two spaces leaves one space, not two.
    if (!kept.has(t.start) && /(^|\s)$/.test(text) && /\s/.test(translation.charAt(cursor))) cursor++;
  }
  text += translation.slice(cursor);
  return { text, at: chosen.map((start) => (start === undefined ? undefined : shift.get(start))) };
}
