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

  // Suffix minimum of fixed gaps: the latest a free tag may go without passing a later anchor.
  const ceiling: number[] = new Array(boundaries.length + 1).fill(m);
  for (let i = boundaries.length - 1; i >= 0; i--) ceiling[i] = Math.min(ceiling[i + 1]!, fixed[i] ?? m);

  // reserve[i]: how many of the translation's last words the elements opening after boundary i need (one per source
  // position where an element with words opens; nested ones opening at the same word share it).
  const hasWords = boundaries.map((b, i) => b.kind === 'open' && wordsAfterOpen(src, source, boundaries, i) > 0);
  const reserve: number[] = new Array(boundaries.length).fill(0);
  const starts = new Set<number>();
  for (let i = boundaries.length - 1; i >= 0; i--) {
    reserve[i] = starts.size;
    if (hasWords[i] && fixed[i] === undefined) starts.add(countEndingBy(src, boundaries[i]!.pos));
  }

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
      if (b.kind === 'close' && !isPunctuation(source.charAt(b.pos - 1))) {
        while (gap > low && gap > 0 && isPunctuationToken(translation, tgt[gap - 1]!)) gap--;
      }
      if (b.kind === 'open' && !isPunctuation(source.charAt(b.pos))) {
        while (gap < high && gap < m && isPunctuationToken(translation, tgt[gap]!)) gap++;
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

/** Source words inside the element opened by boundary `i` (up to its close, or to the sentence's end). */
function wordsAfterOpen(src: Token[], source: string, boundaries: readonly SentenceBoundary[], i: number): number {
  const b = boundaries[i]!;
  const end = b.partner > i ? boundaries[b.partner]!.pos : source.length;
  return src.filter((t) => t.start >= b.pos && t.end <= end && /[\p{L}\p{N}]/u.test(source.slice(t.start, t.end))).length;
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

/** Tokens that end at or before `pos`. */
function countEndingBy(tokens: Token[], pos: number): number {
  let k = 0;
  for (const t of tokens) if (t.end <= pos) k++;
  return k;
}

/** Tokens that start before `pos` (a tag inside a word counts that word). */
function countStartingBefore(tokens: Token[], pos: number): number {
  let k = 0;
  for (const t of tokens) if (t.start < pos) k++;
  return k;
}

/** Fixes gaps by exact matches of an element's source words in the translation (order-consistent ones only). */
function anchors(source: string, boundaries: readonly SentenceBoundary[], translation: string, tgt: Token[], fixed: (number | undefined)[]): void {
  // Token index by start and by end offset in the translation.
  const starts = new Map(tgt.map((t, i) => [t.start, i]));
  const ends = new Map(tgt.map((t, i) => [t.end, i]));
  boundaries.forEach((b, i) => {
    if (b.kind === 'opaque' || (b.kind === 'close' && b.partner >= 0) || fixed[i] !== undefined) return; // each element once, from its first tag
    const openIndex = b.kind === 'open' ? i : -1;
    const closeIndex = b.kind === 'open' ? b.partner : i;
    const from = b.kind === 'open' ? b.pos : 0;
    const to = closeIndex >= 0 ? boundaries[closeIndex]!.pos : source.length;
    const words = source.slice(from, to).trim();
    if (!/[\p{L}\p{N}]/u.test(words)) return;
    const hit = uniqueOccurrence(translation, words, starts, ends);
    if (hit === undefined) return;
    const proposal: [number, number][] = [];
    if (openIndex >= 0) proposal.push([openIndex, hit.first]);
    if (closeIndex >= 0) proposal.push([closeIndex, hit.last]);
    // Accept only if it keeps every already fixed tag in source order.
    const consistent = proposal.every(([index, gap]) =>
      fixed.every((other, j) => other === undefined || (j < index ? other <= gap : j > index ? other >= gap : true)),
    );
    if (consistent && proposal.every(([index]) => fixed[index] === undefined)) for (const [index, gap] of proposal) fixed[index] = gap;
  });
}

/** The token gaps around the only token-aligned occurrence of `words` (case-sensitive, else case-insensitive). */
function uniqueOccurrence(translation: string, words: string, starts: Map<number, number>, ends: Map<number, number>): { first: number; last: number } | undefined {
  for (const fold of [false, true]) {
    const hay = fold ? translation.toLowerCase() : translation;
    const needle = fold ? words.toLowerCase() : words;
    if (hay.length !== translation.length) return undefined; // case folding changed offsets: give up
    const hits: { first: number; last: number }[] = [];
    // Two hits already mean "not unique": stop there (a long run of repeated words would otherwise match everywhere).
    for (let at = hay.indexOf(needle); at >= 0 && hits.length < 2; at = hay.indexOf(needle, at + 1)) {
      const first = starts.get(at);
      const last = ends.get(at + needle.length);
      if (first !== undefined && last !== undefined && last >= first) hits.push({ first, last: last + 1 });
    }
    if (hits.length === 1) return hits[0];
    if (hits.length > 1) return undefined;
  }
  return undefined;
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
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p]!;
    if ('text' in piece || exact[piece.boundary] !== undefined) continue;
    const b = boundaries[piece.boundary]!;
    if (b.kind !== 'opaque') continue;
    const before = pieces[p - 1];
    if (before !== undefined && 'text' in before && ENDS_IN_WORD.test(before.text) && !ENDS_IN_WORD.test(source.slice(Math.max(0, b.pos - 2), b.pos))) {
      pieces.splice(p, 0, { text: ' ' });
      p++;
    }
    const after = pieces[p + 1];
    if (after !== undefined && 'text' in after && STARTS_WITH_WORD.test(after.text) && !STARTS_WITH_WORD.test(source.slice(b.pos, b.pos + 2))) {
      pieces.splice(p + 1, 0, { text: ' ' });
    }
  }
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
