// Putting inline tags back into a translated sentence. No word alignment comes out of the engine, so the
// heuristic is positional, in this order:
//  0. an untranslated element whose placeholder the engine kept (placeholders.ts) goes exactly there;
//  1. anchors: an element whose source words occur unchanged and once in the translation (names, numbers,
//     URLs, "GitHub") is wrapped around that occurrence;
//  2. the other tags are placed proportionally: a tag after k of the n source words goes after
//     k·m/n of the m translated words (open tags rounded down, close tags up; every element that had words keeps
//     at least one while the translation has a word for each — words are kept back for the elements still to
//     open; edge punctuation only one side has — a "." the model added — is left out of k, n and m), kept in
//     source order between the anchors;
//     and tags that stood among the words stay out of leading/trailing punctuation ("¿…", "…</b>."), and
//     punctuation next to a tag stays on the side it had in the source ("docs</a>," not "docs,</a>");
//  3. open tags go right before a word, close tags right after one; opaque tokens (code, images, comments)
//     keep the side they were attached to, and are never glued to a word they were not glued to in the source.
// Every tag is kept, in its source order, even when its span ends up empty.

export type BoundaryKind = 'open' | 'close' | 'opaque';

export interface SentenceBoundary {
  /** Offset in the source sentence, strictly inside it. */
  pos: number;
  kind: BoundaryKind;
  /** For open/close: index of the partner in the same list, or -1 when it lies outside the sentence. */
  partner: number;
}

/** Output of a sentence: text and tags (by index in the boundary list), in order. */
export type Piece = { text: string } | { boundary: number };

interface Token {
  start: number;
  end: number;
}

// A token is a word (letters, digits, marks, inner apostrophes/hyphens), one ideograph/kana/Thai character
// (those scripts do not separate words by spaces), or one other non-space character (punctuation).
const TOKEN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}])[\p{L}\p{N}\p{M}\p{Pc}])+(?:['’\-](?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])[\p{L}\p{N}\p{M}\p{Pc}])+)*|[^\s\p{L}\p{N}\p{M}\p{Pc}]/gu;

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(TOKEN)) tokens.push({ start: m.index, end: m.index + m[0].length });
  return tokens;
}

/**
 * `exact[i]`: an offset in `translation` where boundary i goes, found by the caller (a placeholder the engine
 * kept); the other boundaries are placed around those by the heuristic.
 */
export function placeBoundaries(source: string, boundaries: readonly SentenceBoundary[], translation: string, exact: readonly (number | undefined)[] = []): Piece[] {
  if (boundaries.length === 0) return [{ text: translation }];
  const src = tokenize(source);
  const tgt = tokenize(translation);
  const n = Math.max(src.length, 1);
  const m = tgt.length;

  // Gap g = between target token g-1 and token g (0 = before the first, m = after the last).
  // A tag that stood between words keeps out of the leading/trailing punctuation ("¿", "…start</b>.").
  const srcEdges = punctuationEdges(source, src);
  const tgtEdges = punctuationEdges(translation, tgt);
  // Punctuation at a sentence's edges that only one side has (a final "." the model added or dropped) is left out of
  // the proportion: otherwise it shifts every tag towards one end and can leave the last element empty.
  const extraLead = Math.max(0, tgtEdges.lead - srcEdges.lead);
  const extraTrail = Math.max(0, tgtEdges.trail - srcEdges.trail);
  const missingLead = Math.max(0, srcEdges.lead - tgtEdges.lead);
  const missingTrail = Math.max(0, srcEdges.trail - tgtEdges.trail);
  const nSpan = Math.max(n - missingLead - missingTrail, 1);
  const mSpan = m - extraLead - extraTrail;
  const tgtHi = m - tgtEdges.trail;
  const proportional = boundaries.map((b) => {
    const k = b.kind === 'close' ? countStartingBefore(src, b.pos) : countEndingBy(src, b.pos);
    const scaled = extraLead + (Math.min(Math.max(k - missingLead, 0), nSpan) * mSpan) / nSpan;
    const gap = b.kind === 'open' ? Math.floor(scaled) : b.kind === 'close' ? Math.ceil(scaled) : Math.round(scaled);
    const amongWords = k >= srcEdges.lead && k <= src.length - srcEdges.trail;
    const low = tgtEdges.lead;
    return amongWords && low <= tgtHi ? Math.min(Math.max(gap, low), tgtHi) : gap;
  });

  const fixed: (number | undefined)[] = boundaries.map((_, i) => {
    const at = exact[i];
    return at === undefined ? undefined : countEndingBy(tgt, at);
  });
  anchors(source, boundaries, translation, tgt, fixed);
  const words = new WordIndex(source, src);

  // Suffix minimum of fixed gaps: the latest a free tag may go without passing a later anchor.
  const ceiling: number[] = new Array(boundaries.length + 1).fill(m);
  for (let i = boundaries.length - 1; i >= 0; i--) ceiling[i] = Math.min(ceiling[i + 1]!, fixed[i] ?? m);

  // reserve[i]: how many of the translation's last words the elements opening after boundary i need (one per source
  // position where an element with words opens; nested ones opening at the same word share it).
  const hasWords = boundaries.map((b, i) => b.kind === 'open' && wordsAfterOpen(words, source, boundaries, i) > 0);
  const reserve: number[] = new Array(boundaries.length).fill(0);
  const starts = new Set<number>();
  for (let i = boundaries.length - 1; i >= 0; i--) {
    reserve[i] = starts.size;
    if (hasWords[i] && fixed[i] === undefined) starts.add(countEndingBy(src, boundaries[i]!.pos));
  }

  // The nearest gap at or before (after) each gap that has no punctuation token on its near side: where the
  // walks below stop, found in one step each instead of by a walk (which, repeated per tag, was quadratic).
  const punctuation = tgt.map((t) => isPunctuationToken(translation, t));
  const wordBefore: number[] = new Array(m + 1);
  for (let g = 0; g <= m; g++) wordBefore[g] = g > 0 && punctuation[g - 1] ? wordBefore[g - 1]! : g;
  const wordAfter: number[] = new Array(m + 1);
  for (let g = m; g >= 0; g--) wordAfter[g] = g < m && punctuation[g] ? wordAfter[g + 1]! : g;

  const gaps: number[] = [];
  let floor = 0;
  boundaries.forEach((b, i) => {
    let gap = fixed[i];
    if (gap === undefined) {
      let low = floor;
      const high = ceiling[i + 1]!;
      // A close whose element had words keeps at least one word when the order allows it.
      if (b.kind === 'close' && b.partner >= 0 && gaps[b.partner] !== undefined) {
        const open = boundaries[b.partner]!;
        const hadWords = countStartingBefore(src, b.pos) - countEndingBy(src, open.pos) > 0;
        if (hadWords && gaps[b.partner]! + 1 <= high) low = Math.max(low, gaps[b.partner]! + 1);
      }
      gap = Math.min(Math.max(proportional[i]!, low), Math.max(high, low));
      // Punctuation stays outside an element unless it was inside in the source ("docs</a>," not "docs,</a>").
      if (b.kind === 'close' && !isPunctuation(source.charAt(b.pos - 1)) && gap > low) {
        gap = Math.max(low, wordBefore[Math.min(gap, m)]!);
      }
      if (b.kind === 'open' && !isPunctuation(source.charAt(b.pos)) && gap < high && gap < m) {
        gap = Math.min(high, wordAfter[Math.max(gap, 0)]!);
      }
      // Words are kept back for the elements still to open that had words (one each), so rounding up here cannot
      // leave a later one empty: "<i>sings</i> <em>here friend</em>." in two words gives each element one.
      const cap = tgtHi - reserve[i]! - (b.kind === 'open' && hasWords[i] ? 1 : 0);
      if (cap >= low && gap > cap) gap = cap;
    }
    gaps.push(gap);
    floor = gap;
  });

  return render(source, boundaries, translation, tgt, gaps, exact);
}

/** Word tokens (with a letter or digit) among the tokens, counted by prefix: words in any range in one step. */
class WordIndex {
  private readonly before: Int32Array;

  constructor(
    text: string,
    readonly tokens: Token[],
  ) {
    this.before = new Int32Array(tokens.length + 1);
    tokens.forEach((t, i) => (this.before[i + 1] = this.before[i]! + (/[\p{L}\p{N}]/u.test(text.slice(t.start, t.end)) ? 1 : 0)));
  }

  /** Word tokens that start at or after `from` and end by `to`. */
  between(from: number, to: number): number {
    const first = countStartingBefore(this.tokens, from);
    const last = countEndingBy(this.tokens, to);
    return last > first ? this.before[last]! - this.before[first]! : 0;
  }
}

/** Source words inside the element opened by boundary `i` (up to its close, or to the sentence's end). */
function wordsAfterOpen(words: WordIndex, source: string, boundaries: readonly SentenceBoundary[], i: number): number {
  const b = boundaries[i]!;
  const end = b.partner > i ? boundaries[b.partner]!.pos : source.length;
  return words.between(b.pos, end);
}

/** How many tokens at each end of a sentence are punctuation only (no letter or digit). */
function punctuationEdges(text: string, tokens: Token[]): { lead: number; trail: number } {
  const word = tokens.map((t) => /[\p{L}\p{N}]/u.test(text.slice(t.start, t.end)));
  const first = word.indexOf(true);
  if (first < 0) return { lead: tokens.length, trail: 0 };
  return { lead: first, trail: tokens.length - 1 - word.lastIndexOf(true) };
}

function isPunctuation(char: string): boolean {
  return char !== '' && /[^\s\p{L}\p{N}\p{M}]/u.test(char);
}

function isPunctuationToken(text: string, token: Token): boolean {
  return !/[\p{L}\p{N}]/u.test(text.slice(token.start, token.end));
}

/** Tokens that end at or before `pos` (tokens are in order and do not overlap: a binary search). */
function countEndingBy(tokens: Token[], pos: number): number {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tokens[mid]!.end <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Tokens that start before `pos` (a tag inside a word counts that word). */
function countStartingBefore(tokens: Token[], pos: number): number {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tokens[mid]!.start < pos) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * An element's words are an anchor when they are short (a name, a number, a URL): longer ones are placed
 * proportionally anyway, and capping them keeps the search per element bounded whatever the sentence.
 */
const MAX_ANCHOR_CHARS = 120;
/** Occurrences of the needle's rarest token looked at; past this, no token of it is rare enough to anchor. */
const MAX_CANDIDATES = 16;

/** Fixes gaps by exact matches of an element's source words in the translation (order-consistent ones only). */
function anchors(source: string, boundaries: readonly SentenceBoundary[], translation: string, tgt: Token[], fixed: (number | undefined)[]): void {
  const occurrences = new Occurrences(translation, tgt);
  const order = new FixedOrder(fixed);
  boundaries.forEach((b, i) => {
    if (b.kind === 'opaque' || (b.kind === 'close' && b.partner >= 0) || fixed[i] !== undefined) return; // each element once, from its first tag
    const openIndex = b.kind === 'open' ? i : -1;
    const closeIndex = b.kind === 'open' ? b.partner : i;
    const from = b.kind === 'open' ? b.pos : 0;
    const to = closeIndex >= 0 ? boundaries[closeIndex]!.pos : source.length;
    if (to - from > MAX_ANCHOR_CHARS) return;
    const words = source.slice(from, to).trim();
    if (!/[\p{L}\p{N}]/u.test(words)) return;
    const hit = occurrences.unique(words);
    if (hit === undefined) return;
    const proposal: [number, number][] = [];
    if (openIndex >= 0) proposal.push([openIndex, hit.first]);
    if (closeIndex >= 0) proposal.push([closeIndex, hit.last]);
    // Accept only if it keeps every already fixed tag in source order.
    const consistent = proposal.every(([index, gap]) => order.maxBefore(index) <= gap && order.minAfter(index) >= gap);
    if (consistent && proposal.every(([index]) => fixed[index] === undefined)) {
      for (const [index, gap] of proposal) {
        fixed[index] = gap;
        order.set(index, gap);
      }
    }
  });
}

/** The fixed gaps so far, for "latest before i" and "earliest after i" in O(log n) (a max and a min segment tree). */
class FixedOrder {
  private readonly size: number;
  private readonly max: Float64Array;
  private readonly min: Float64Array;

  constructor(fixed: readonly (number | undefined)[]) {
    let size = 1;
    while (size < fixed.length) size *= 2;
    this.size = size;
    this.max = new Float64Array(2 * size).fill(-Infinity);
    this.min = new Float64Array(2 * size).fill(Infinity);
    fixed.forEach((gap, i) => gap !== undefined && this.set(i, gap));
  }

  set(i: number, gap: number): void {
    let at = i + this.size;
    this.max[at] = gap;
    this.min[at] = gap;
    for (at >>= 1; at >= 1; at >>= 1) {
      this.max[at] = Math.max(this.max[2 * at]!, this.max[2 * at + 1]!);
      this.min[at] = Math.min(this.min[2 * at]!, this.min[2 * at + 1]!);
    }
  }

  /** Largest fixed gap among indices < i. */
  maxBefore(i: number): number {
    return this.fold(this.max, 0, i, Math.max, -Infinity);
  }

  /** Smallest fixed gap among indices > i. */
  minAfter(i: number): number {
    return this.fold(this.min, i + 1, this.size, Math.min, Infinity);
  }

  private fold(tree: Float64Array, from: number, to: number, f: (a: number, b: number) => number, none: number): number {
    let out = none;
    for (let lo = from + this.size, hi = to + this.size; lo < hi; lo >>= 1, hi >>= 1) {
      if (lo & 1) out = f(out, tree[lo++]!);
      if (hi & 1) out = f(out, tree[--hi]!);
    }
    return out;
  }
}

/** Where each token of the translation occurs (as written, and case-folded), to find a needle's occurrences. */
class Occurrences {
  private readonly exact = new Map<string, number[]>();
  private folded: Map<string, number[]> | undefined;
  private readonly lower: string;

  constructor(
    private readonly translation: string,
    private readonly tgt: Token[],
  ) {
    tgt.forEach((t, i) => push(this.exact, translation.slice(t.start, t.end), i));
    this.lower = translation.toLowerCase();
  }

  /**
   * The token gaps around the only token-aligned occurrence of `words` (case-sensitive, else case-insensitive).
   * An occurrence is token-aligned when it starts at a token's start and ends at a token's end; then it is
   * tokenized as `words` is alone, so it is found from the occurrences of the needle's rarest token.
   */
  unique(words: string): { first: number; last: number } | undefined {
    for (const fold of [false, true]) {
      if (fold && this.lower.length !== this.translation.length) return undefined; // case folding changed offsets: give up
      const needle = fold ? words.toLowerCase() : words;
      const hay = fold ? this.lower : this.translation;
      const index = fold ? (this.folded ??= this.foldedIndex()) : this.exact;
      const tokens = tokenize(needle);
      let pivot = -1;
      let candidates: number[] = [];
      for (let r = 0; r < tokens.length; r++) {
        const list = index.get(needle.slice(tokens[r]!.start, tokens[r]!.end)) ?? [];
        if (pivot < 0 || list.length < candidates.length) [pivot, candidates] = [r, list];
      }
      if (candidates.length > MAX_CANDIDATES) return undefined; // every word of it is common: not an anchor
      const hits: { first: number; last: number }[] = [];
      for (const at of candidates) {
        const first = at - pivot;
        const last = first + tokens.length - 1;
        if (first < 0 || last >= this.tgt.length) continue;
        const start = this.tgt[first]!.start;
        if (this.tgt[last]!.end - start !== needle.length || !hay.startsWith(needle, start)) continue;
        hits.push({ first, last: last + 1 });
        if (hits.length > 1) return undefined; // two hits already mean "not unique"
      }
      if (hits.length === 1) return hits[0];
    }
    return undefined;
  }

  private foldedIndex(): Map<string, number[]> {
    const folded = new Map<string, number[]>();
    this.tgt.forEach((t, i) => push(folded, this.lower.slice(t.start, t.end), i));
    return folded;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function render(source: string, boundaries: readonly SentenceBoundary[], translation: string, tgt: Token[], gaps: number[], exact: readonly (number | undefined)[]): Piece[] {
  const m = tgt.length;
  const pieces: Piece[] = [];
  const text = (t: string): void => {
    if (t !== '') pieces.push({ text: t });
  };
  let b = 0;
  for (let g = 0; g <= m; g++) {
    const gapStart = g === 0 ? 0 : tgt[g - 1]!.end;
    const gapEnd = g === m ? translation.length : tgt[g]!.start;
    // Tags that hug the previous word come first (before the gap's whitespace), the rest after it, keeping
    // order; a placeholder's element goes exactly where the placeholder was.
    let at = gapStart;
    for (; b < boundaries.length && gaps[b] === g; b++) {
      const to = exact[b] ?? (side(source, boundaries[b]!) === 'left' ? at : gapEnd);
      if (to > at) text(translation.slice(at, to));
      at = Math.max(at, to);
      pieces.push({ boundary: b });
    }
    text(translation.slice(at, gapEnd));
    if (g < m) text(translation.slice(tgt[g]!.start, tgt[g]!.end));
  }
  keepSpacesAroundTokens(source, boundaries, pieces, exact);
  return pieces;
}

/**
 * An opaque token placed by the heuristic is never glued to a word it was not glued to in the source
 * (`The cat <i>sleeps</i> here.` never becomes `Katzen<i>sleeps</i>`, `<code>bob</code>, look` never
 * `<code>bob</code>Bild`): where the translation puts a letter or digit right against it and the source had
 * whitespace or punctuation on that side, a space goes between. Punctuation stays against it (`<i>sleeps</i>.`).
 */
function keepSpacesAroundTokens(source: string, boundaries: readonly SentenceBoundary[], pieces: Piece[], exact: readonly (number | undefined)[]): void {
  // Built anew rather than spliced in place: one splice per token made a sentence of many tokens quadratic.
  const out: Piece[] = [];
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p]!;
    const b = 'text' in piece || exact[piece.boundary] !== undefined ? undefined : boundaries[piece.boundary]!;
    if (b === undefined || b.kind !== 'opaque') {
      out.push(piece);
      continue;
    }
    const before = out[out.length - 1];
    if (before !== undefined && 'text' in before && ENDS_IN_WORD.test(before.text) && !ENDS_IN_WORD.test(source.slice(Math.max(0, b.pos - 2), b.pos))) {
      out.push({ text: ' ' });
    }
    out.push(piece);
    const after = pieces[p + 1];
    if (after !== undefined && 'text' in after && STARTS_WITH_WORD.test(after.text) && !STARTS_WITH_WORD.test(source.slice(b.pos, b.pos + 2))) {
      out.push({ text: ' ' });
    }
  }
  pieces.length = 0;
  for (const piece of out) pieces.push(piece);
}

const ENDS_IN_WORD = /[\p{L}\p{N}\p{M}]$/u;
const STARTS_WITH_WORD = /^[\p{L}\p{N}\p{M}]/u;

function side(source: string, b: SentenceBoundary): 'left' | 'right' | 'middle' {
  if (b.kind === 'close') return 'left';
  if (b.kind === 'open') return 'right';
  const spaceBefore = /\s/.test(source.charAt(b.pos - 1));
  const spaceAfter = /\s/.test(source.charAt(b.pos));
  if (!spaceBefore) return 'left';
  if (!spaceAfter) return 'right';
  return 'middle';
}
