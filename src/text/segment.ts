// Plain text -> sentences for the engine, and back. Lines and paragraphs are cut at line breaks, sentences by
// Intl.Segmenter; every piece of whitespace (indentation, blank lines, spaces between sentences, \r\n) is kept
// verbatim and only the sentence bodies are replaced, so the output has exactly the input's layout.
import { balanceBidi } from './bidi.ts';
import type { TranslationPlan } from './types.ts';

type Piece = { kind: 'keep'; text: string } | { kind: 'segment'; index: number };

// Line breaks, tabs (columns: `Name\tAge\tCity`), and the controls and BOMs that glue texts together (NUL, a
// U+FEFF from a concatenated file, a form feed, NEL): each is a hard boundary, kept verbatim between the pieces.
const LINE_BREAK = /(\r\n|\r|\n|\u2028|\u2029|[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\ufeff]+)/;
// Invisible characters at a sentence's edges (format characters such as U+200B, a bidi mark, a soft hyphen) are
// layout, like whitespace: a model drops them, so they stay outside what it is given. Inside a sentence they stay
// with it (Thai writes U+200B between words). Not the emoji tag characters U+E0020-E007F: they belong to the flag
// before them (🏴 + tags = 🏴󠁧󠁢󠁥󠁮󠁧󠁿).
const EDGE_CHAR = /^(?![\u{E0000}-\u{E007F}])[\s\p{Cc}\p{Cf}]$/u;

/** [lead, body, trail] of a sentence, edges as above. A scan from each end (a regex with a lazy middle was quadratic). */
function splitEdges(segment: string): [string, string, string] {
  const chars = [...segment];
  let start = 0;
  while (start < chars.length && EDGE_CHAR.test(chars[start]!)) start++;
  let end = chars.length;
  while (end > start && EDGE_CHAR.test(chars[end - 1]!)) end--;
  return [chars.slice(0, start).join(''), chars.slice(start, end).join(''), chars.slice(end).join('')];
}

// ICU's root rules end a sentence after "Mr." or an initial; these common abbreviations do not (nor the last
// letter of a dotted acronym: `"E.S.E. Electronics"`). Tested on the end of a sentence only (see sentencesOf).
const ABBREVIATION_END = /(?<![^\s("'“‘«.])(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|vs|etc|e\.g|i\.e|z\.B|bzw|usw|Nr|Hr|Fr|Mme|\p{Lu})\.$/u;

// ICU ends a sentence at "?", "!" or "." even with no space after it, which cuts URLs and addresses
// (`https://x.com/search?q=1`, `a.b?c=1`, `hi!me@x.org`): a break right after ASCII punctuation with an ASCII
// letter or digit right behind it is not one. (Chinese and Japanese end sentences without spaces, also with ASCII
// "!" and "?": `我很好!你呢?` is still cut.)
const UNSPACED_END = /[.?!]$/;
const ASCII_WORD_START = /^[A-Za-z0-9]/;
// Nor does a quoted exclamation or question end one when a small letter follows: ICU cuts after `"Stop!"` in
// `He said "Stop!" and left.` (Only after a closing quote or bracket: all-lowercase chat, `fine. how are you?`,
// keeps its sentences.)
const QUOTED_END = /[.?!]["'”’»)\]]$/;
const LOWERCASE_START = /^\p{Ll}/u;

/**
 * The end-anchored rules above look at the last few characters of the sentence read so far, never at all of it: a
 * sentence grows with every join, and testing the whole of it each time was quadratic (100k characters of "A. "
 * took 6.5 s). The longest rule needs 6 characters plus the one before; 16 leave room.
 */
const TAIL = 16;

/**
 * V8's sentence segmenter slows down with the length of the string it walks (16,000 sentences in one line: 4.3 s;
 * in pieces of 50: 39 ms), so a long line is given to it in pieces of about CHUNK characters, cut only where it
 * would cut anyway — after a sentence's punctuation and spaces, before a capital or a digit, or after 。！？. The
 * joining rules below run across the pieces as across any two sentences.
 */
const CHUNK = 1000;
/**
 * Past this without such a place, a piece is cut at a space or a punctuation mark, or right here when there is none
 * in the next FORCED_CHUNK characters either (see chunksOf): no segment is longer than 2 x FORCED_CHUNK, and a
 * run of letters without any break comes in pieces of FORCED_CHUNK, which repeat (and are translated once) when
 * the run is one letter repeated. So no single segment's work (here, and the engine's encoding of it) holds the
 * event loop for long. The engine cuts a sentence this long at about this size anyway (512 tokens at most).
 */
const FORCED_CHUNK = 2048;
const CHUNK_BOUNDARY = /[.?!]["'”’»)\]]*\s+(?=[\p{Lu}\d])|[。！？]+/gu;

function* chunksOf(line: string): Generator<string> {
  if (line.length <= CHUNK) {
    yield line;
    return;
  }
  let start = 0;
  for (const m of line.matchAll(CHUNK_BOUNDARY)) {
    const cut = m.index + m[0].length;
    // Text with no such place for long (`"Stop!" and "Stop!" and …`, `x?y?x?y…`) is cut after a space or a
    // punctuation mark instead: a sentence that long is cut by the engine anyway (long-input.ts).
    while (cut - start > FORCED_CHUNK) start = yield* forcedCut(line, start);
    if (cut - start >= CHUNK) {
      yield line.slice(start, cut);
      start = cut;
    }
  }
  while (line.length - start > FORCED_CHUNK) start = yield* forcedCut(line, start);
  if (start < line.length) yield line.slice(start);
}

/**
 * Yields line[start, p) where p is just after the first space or .?! past start + FORCED_CHUNK, else (none within
 * FORCED_CHUNK more) start + FORCED_CHUNK, never inside a surrogate pair; returns p.
 */
function* forcedCut(line: string, start: number): Generator<string, number> {
  const from = start + FORCED_CHUNK;
  const rest = line.slice(from, from + FORCED_CHUNK).search(/[\s.?!]/);
  let cut = rest < 0 ? from : from + rest + 1;
  if (cut < line.length && /[\udc00-\udfff]/.test(line[cut]!)) cut--;
  yield line.slice(start, cut);
  return cut;
}

function sentencesOf(segmenter: Intl.Segmenter, line: string): string[] {
  const out: string[][] = []; // each sentence as its ICU pieces, joined once at the end
  let recent = ''; // the last characters of the sentence read so far
  for (const chunk of chunksOf(line)) for (const { segment } of segmenter.segment(chunk)) {
    let joined = false;
    if (out.length > 0) {
      const end = recent.trimEnd();
      const tail = end.slice(-TAIL);
      const spaced = end.length < recent.length;
      joined =
        ABBREVIATION_END.test(tail) ||
        (!spaced && UNSPACED_END.test(tail) && ASCII_WORD_START.test(segment)) ||
        (QUOTED_END.test(tail) && LOWERCASE_START.test(segment));
    }
    if (joined) out[out.length - 1]!.push(segment);
    else out.push([segment]);
    // Trailing spaces past 64 are rare; then no rule joins (as if the tail had no punctuation).
    recent = (joined ? recent + segment : segment).slice(-(TAIL + 64));
  }
  return out.map((pieces) => pieces.join(''));
}

/** `locale` only tunes sentence rules (e.g. the source language); undefined uses the root rules. */
const segmenters = new Map<string | undefined, Intl.Segmenter>();

/** One segmenter per locale: making one costs more than segmenting a short text (a page has thousands of runs). */
function segmenterFor(locale: string | undefined): Intl.Segmenter {
  let segmenter = segmenters.get(locale);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
    if (segmenters.size < 64) segmenters.set(locale, segmenter);
  }
  return segmenter;
}

export function planText(text: string, locale?: string): TranslationPlan {
  const segmenter = segmenterFor(locale);
  const pieces: Piece[] = [];
  const segments: string[] = [];
  const keep = (s: string) => {
    if (!s) return;
    const last = pieces[pieces.length - 1];
    if (last?.kind === 'keep') last.text += s;
    else pieces.push({ kind: 'keep', text: s });
  };

  // split() with a capturing group puts the separators themselves at the odd indices.
  for (const [i, part] of text.split(LINE_BREAK).entries()) {
    if (i % 2 === 1) {
      keep(part);
      continue;
    }
    for (const segment of sentencesOf(segmenter, part)) {
      const [lead, body, trail] = splitEdges(segment);
      keep(lead);
      if (body) {
        pieces.push({ kind: 'segment', index: segments.length });
        segments.push(body);
      }
      keep(trail);
    }
  }

  return {
    segments,
    assemble(translations: string[]): string {
      if (translations.length !== segments.length) {
        throw new Error(`planText: ${segments.length} segments but ${translations.length} translations`);
      }
      return pieces.map((p) => (p.kind === 'keep' ? p.text : balanceBidi(segments[p.index]!, translations[p.index]!))).join('');
    },
  };
}
