// One run = the text of a block with its inline tags: slots of text separated by boundaries (tags and
// opaque tokens). A run is cut into sentences; each sentence is one segment even when tags cut through
// it, and the translations are poured back into the same number of slots. Opaque tokens that read as words
// (`<code>bob</code>`) stand in their sentence as placeholders (placeholders.ts).
import { balanceBidi } from '../bidi.ts';
import { nonSpaceCount, readMarkers } from '../inline-codes.ts';
import { placeBoundaries, type BoundaryKind, type Piece, type SentenceBoundary } from './align.ts';
import { cutPlaceholders, placeholderNames } from './placeholders.ts';
import { normalizeSpace, splitSentences } from './sentences.ts';

export interface RunBoundary {
  kind: BoundaryKind;
  /** Index of the matching open/close in the run, -1 for opaque tokens or an unmatched tag. */
  partner: number;
  /** An opaque token a reader reads as words of the sentence: the engine sees a placeholder there. */
  words?: boolean;
}

export interface Run {
  /** Decoded text between boundaries: `slots.length === boundaries.length + 1`. */
  slots: string[];
  boundaries: RunBoundary[];
}

export interface RunPlan {
  segments: string[];
  /** New slot texts (same count as the run's slots) from one translation per segment. */
  assemble(translations: readonly string[]): string[];
}

interface RunSentence {
  /** The sentence's text in the run's text (without placeholders). */
  start: number;
  end: number;
  /** Its boundaries: indices [from, to) in the run. */
  from: number;
  to: number;
  /** Per boundary in [from, to): its placeholder, if it is a word token of this sentence (adjacent ones share one). */
  names: (string | undefined)[];
}

export function planRun(run: Run): RunPlan {
  const text = run.slots.join('');
  const positions: number[] = [];
  let offset = 0;
  for (let i = 0; i < run.boundaries.length; i++) {
    offset += run.slots[i]!.length;
    positions.push(offset);
  }
  const sentences = sentencesOf(text, positions, run.boundaries);
  const segments = sentences.map((s) => {
    let withNames = '';
    let cursor = s.start;
    let last: string | undefined;
    s.names.forEach((name, i) => {
      if (name === undefined || name === last) return; // adjacent tokens share one name
      last = name;
      const at = positions[s.from + i]!;
      withNames += text.slice(cursor, at) + name;
      cursor = at;
    });
    return normalizeSpace(withNames + text.slice(cursor, s.end));
  });

  return {
    segments,
    assemble(translations) {
      const pieces: Piece[] = [];
      let cursor = 0;
      let b = 0;
      const copyUntil = (end: number, boundaryEnd: number): void => {
        // Original text up to `end` and tags up to index `boundaryEnd`, as they were.
        while (b < boundaryEnd) {
          if (positions[b]! > cursor) pieces.push({ text: text.slice(cursor, positions[b]) });
          cursor = Math.max(cursor, positions[b]!);
          pieces.push({ boundary: b++ });
        }
        if (end > cursor) pieces.push({ text: text.slice(cursor, end) });
        cursor = Math.max(cursor, end);
      };
      sentences.forEach((sentence, k) => {
        copyUntil(sentence.start, sentence.from);
        // Bidi pairs as in the source sentence (bidi.ts): a lost PDF must not reorder the rest of the page.
        // A memory's stored translation may say where its tags go (inline-codes.ts).
        const marked = readMarkers((translations[k] ?? segments[k]!).trim());
        const raw = marked ? marked.text.trim() : (translations[k] ?? segments[k]!).trim();
        const translation = balanceBidi(segments[k]!, raw);
        if (translation === segments[k] && !marked?.codes.length) {
          copyUntil(sentence.end, sentence.to); // unchanged sentence: original spacing and tag positions
          return;
        }
        const { from, to } = sentence;
        const local: SentenceBoundary[] = [];
        for (let index = from; index < to; index++) {
          const { kind, partner } = run.boundaries[index]!;
          local.push({ pos: positions[index]! - sentence.start, kind, partner: partner >= from && partner < to ? partner - from : -1 });
        }
        const source = text.slice(sentence.start, sentence.end);
        const cut = cutPlaceholders(translation, sentence.names);
        const exact = marked && translation === raw && cut.text === translation ? codePlaces(source, local, marked, raw) : undefined;
        for (const piece of placeBoundaries(source, local, cut.text, exact ?? cut.at)) {
          pieces.push('text' in piece ? piece : { boundary: from + piece.boundary });
        }
        b = to;
        cursor = sentence.end;
      });
      copyUntil(text.length, run.boundaries.length);
      return toSlots(pieces, run.boundaries.length);
    },
  };
}

/**
 * The sentences of a run, with their boundaries. Sentence rules see each word token as a placeholder word,
 * so a token at the edge of a sentence (`<code>npm</code> is a tool.`) belongs to it; a sentence made of
 * tokens only has no words of its own and is left out.
 */
function sentencesOf(text: string, positions: readonly number[], boundaries: readonly RunBoundary[]): RunSentence[] {
  // Word tokens glued to a letter or digit of the text (`the <code>foo</code>s`) get no placeholder: "Xs" would
  // be a new word. Adjacent word tokens (`<kbd>Ctrl</kbd><kbd>C</kbd>`) share one, as they read as one word.
  const wordChar = /[\p{L}\p{N}\p{M}]/u;
  const wordTokens = boundaries.flatMap((b, i) => {
    const at = positions[i]!;
    return b.words && !wordChar.test(text.charAt(at - 1)) && !wordChar.test(text.charAt(at)) ? [i] : [];
  });
  // The run's text with an "X" for each group of word tokens; `shifted[j]` = where word token j's X is in it.
  let withWords = '';
  let cursor = 0;
  const shifted = wordTokens.map((i, j) => {
    if (j > 0 && positions[wordTokens[j - 1]!] === positions[i]) return withWords.length - 1;
    withWords += text.slice(cursor, positions[i]);
    cursor = positions[i]!;
    withWords += 'X';
    return withWords.length - 1;
  });
  withWords += text.slice(cursor);
  const xs = shifted.filter((x, j) => j === 0 || x !== shifted[j - 1]); // one X per group

  const out: RunSentence[] = [];
  // Sentences come in order: each pointer below only moves forward (a long run stays linear).
  let xsBefore = 0; // X's before the current offset in withWords
  const plain = (at: number): number => {
    while (xsBefore < xs.length && xs[xsBefore]! < at) xsBefore++;
    return at - xsBefore;
  };
  let firstAfterStart = 0; // first boundary with position > start
  let firstAtEnd = 0; // first boundary with position >= end
  let firstMember = 0; // first word token (index into wordTokens) in this sentence or later
  let previousTo = 0;
  for (const span of splitSentences(withWords)) {
    const start = plain(span.start);
    const end = plain(span.end);
    while (firstMember < shifted.length && shifted[firstMember]! < span.start) firstMember++;
    let lastMember = firstMember;
    while (lastMember < shifted.length && shifted[lastMember]! < span.end) lastMember++;
    const members = wordTokens.slice(firstMember, lastMember);
    if (!/[^ \t\n\f\r]/.test(text.slice(start, end))) continue;
    // Boundaries inside: the word tokens, the tags strictly inside the text, and whatever lies between them.
    while (firstAfterStart < positions.length && positions[firstAfterStart]! <= start) firstAfterStart++;
    while (firstAtEnd < positions.length && positions[firstAtEnd]! < end) firstAtEnd++;
    let from = firstAfterStart;
    let to = firstAtEnd;
    if (members.length > 0) {
      from = Math.min(from, members[0]!);
      to = Math.max(to, members[members.length - 1]! + 1);
    }
    from = Math.max(from, previousTo);
    to = Math.max(to, from);
    previousTo = to;
    // One name per group of adjacent word tokens.
    const groups = members.map((index, j) => (j > 0 && positions[members[j - 1]!] === positions[index] ? 0 : 1));
    const chosen = placeholderNames(text.slice(start, end), groups.reduce((a: number, g) => a + g, 0));
    const names: (string | undefined)[] = new Array(to - from).fill(undefined);
    let group = -1;
    members.forEach((index, j) => {
      group += groups[j]!;
      names[index - from] = chosen[group];
    });
    out.push({ start, end, from, to, names });
  }
  return out;
}

/**
 * Where the sentence's tags go in a memory's translation: from its markers, when they are the sentence's own tags
 * (as many, of the same kinds, after as many non-space characters of the source); otherwise undefined (the
 * positional placement). The markers' offsets count in the trimmed translation, as `translation` is.
 */
function codePlaces(
  source: string,
  local: readonly SentenceBoundary[],
  marked: NonNullable<ReturnType<typeof readMarkers>>,
  translation: string,
): (number | undefined)[] | undefined {
  const { codes } = marked;
  if (codes.length !== local.length || local.length === 0) return undefined;
  const lead = marked.text.length - marked.text.trimStart().length;
  const places: number[] = [];
  for (const [i, b] of local.entries()) {
    const c = codes[i]!;
    if (c.kind !== b.kind || c.before !== nonSpaceCount(source.slice(0, b.pos))) return undefined;
    const at = c.at - lead;
    if (at < 0 || at > translation.length || (i > 0 && at < places[i - 1]!)) return undefined;
    places.push(at);
  }
  return places;
}

function toSlots(pieces: Piece[], boundaryCount: number): string[] {
  const slots: string[] = [''];
  let expected = 0;
  for (const piece of pieces) {
    if ('text' in piece) slots[slots.length - 1] += piece.text;
    else {
      // Order is an invariant of placeBoundaries; a violation would scramble markup, so fail loudly.
      if (piece.boundary !== expected++) throw new Error('html: inline tags out of order while assembling');
      slots.push('');
    }
  }
  if (slots.length !== boundaryCount + 1) throw new Error('html: inline tags lost while assembling');
  return slots;
}
