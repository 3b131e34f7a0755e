// The text arithmetic of a memory: the exact-match key, the tokens the similarity is computed on, and the words
// that index segments for fuzzy lookup.
//
// Similarity (0–100), as CAT tools compute a fuzzy match: both sentences are cut into tokens (runs of letters and
// digits, and each other non-space character on its own), the Levenshtein distance d between the two token
// sequences is counted (insert, delete, substitute one token: cost 1 each; tokens compare exactly, case
// included), and similarity = floor(100 × (1 − d / max(n, m))) for token counts n and m. 100 is kept for an exact
// match (same text after whitespace normalisation); any other pair scores at most 99.
import { createHash } from 'node:crypto';

/** The text an exact lookup compares: NFC, runs of whitespace as one space, no leading or trailing whitespace. */
export function normalise(text: string): string {
  return text.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/** The stored exact-match key of a source: 128 bits of SHA-1 of the normalised text, hex (fixed width for indexes). */
export function exactKey(text: string): string {
  return createHash('sha1').update(normalise(text)).digest('hex').slice(0, 32);
}

const TOKEN = /[\p{L}\p{N}\p{M}]+|[^\s\p{L}\p{N}\p{M}]/gu;

export function tokens(text: string): string[] {
  return normalise(text).match(TOKEN) ?? [];
}

/** Token-level Levenshtein distance, two rows; stops early once `max` is exceeded (returns max + 1). */
export function tokenDistance(a: readonly string[], b: readonly string[], max = Infinity): number {
  if (a.length < b.length) [a, b] = [b, a];
  if (a.length - b.length > max) return max + 1;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur[j] = v;
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** Similarity 0–100 of two sentences (the formula above). */
export function similarity(a: string, b: string): number {
  if (normalise(a) === normalise(b)) return 100;
  return similarityOfTokens(tokens(a), tokens(b));
}

export function similarityOfTokens(a: readonly string[], b: readonly string[]): number {
  const n = Math.max(a.length, b.length);
  if (n === 0) return 100;
  const d = tokenDistance(a, b);
  return Math.min(99, Math.floor(100 * (1 - d / n)));
}

/** The most distance a candidate may have and still reach `threshold` against a sentence of n tokens. */
export function maxDistance(n: number, m: number, threshold: number): number {
  return Math.floor(Math.max(n, m) * (1 - threshold / 100));
}

/**
 * The index words of a sentence: its distinct words (letters or digits), lower-cased, as 31-bit FNV-1a hashes.
 * A segment is found for fuzzy lookup through the words it shares with the sentence looked up.
 */
export function indexWords(text: string, max = MAX_INDEX_WORDS): number[] {
  const words = new Set<string>();
  for (const t of tokens(text)) if (/[\p{L}\p{N}]/u.test(t)) words.add(t.toLowerCase());
  // The longest words of a long sentence: they are the rarest, so the posting lists stay short.
  const list = words.size > max ? [...words].sort((a, b) => b.length - a.length).slice(0, max) : [...words];
  return list.map(fnv);
}

/** Most index words stored per segment. */
export const MAX_INDEX_WORDS = 16;

function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h & 0x7fffffff;
}
