// Sentence boundaries inside the text of one block. Only offsets are returned so the caller can keep the
// inline tags and the whitespace between sentences exactly where they were.

/** HTML's whitespace (not U+00A0: a no-break space is content, `10&nbsp;km` stays one unit). */
export const HTML_SPACE = /[ \t\n\f\r]/;
const HTML_SPACES = /[ \t\n\f\r]+/g;

/** Words after which a full stop does not end a sentence (lower-cased, without the dot). */
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'sr', 'jr', 'vs', 'etc', 'e.g', 'i.e', 'no', 'fig', 'approx', 'cf',
  'inc', 'ltd', 'co', 'dept', 'vol', 'p', 'pp', 'ca', 'z.b', 'bzw', 'usw', 'nr', 'hr', 'fr', 'str', 'mme', 'sra',
]);

export interface Span {
  start: number;
  end: number;
}

/** Collapse HTML whitespace runs to one space and trim: what the engine sees of a sentence. */
export function normalizeSpace(text: string): string {
  return text.replace(HTML_SPACES, ' ').replace(/^ | $/g, '');
}

/** Spans of the sentences of `text`, trimmed of HTML whitespace, in order; none for blank text. */
export function splitSentences(text: string): Span[] {
  const spans: Span[] = [];
  let start = skipSpace(text, 0);
  // A sentence ends after terminal punctuation (plus closing quotes/brackets) followed by whitespace and
  // a character that can start a sentence; CJK full stops end one even without a following space.
  const terminal = /([.!?…]+|[。！？]+)(["'”’»)\]]*)/g;
  let match: RegExpExecArray | null;
  while ((match = terminal.exec(text)) !== null) {
    const end = match.index + match[0].length;
    if (end <= start) continue;
    const cjk = /[。！？]/.test(match[1]!);
    const next = text.slice(end);
    const nextStart = skipSpace(text, end);
    if (nextStart >= text.length) break;
    if (!cjk) {
      if (!HTML_SPACE.test(next.charAt(0))) continue;
      if (/^\p{Ll}/u.test(text.slice(nextStart))) continue;
      if (match[1] === '.' && isAbbreviation(text.slice(start, match.index))) continue;
    }
    spans.push({ start, end });
    start = nextStart;
  }
  const last = trimEnd(text, text.length);
  if (last > start) spans.push({ start, end: last });
  return spans;
}

function isAbbreviation(before: string): boolean {
  const word = /(\S+)$/.exec(before)?.[1];
  if (word === undefined) return false;
  if (/^\p{Lu}$/u.test(word)) return true; // an initial: "J. Smith"
  return ABBREVIATIONS.has(word.toLowerCase().replace(/^[("'«“]+/, ''));
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && HTML_SPACE.test(text.charAt(i))) i++;
  return i;
}

function trimEnd(text: string, to: number): number {
  let i = to;
  while (i > 0 && HTML_SPACE.test(text.charAt(i - 1))) i--;
  return i;
}
