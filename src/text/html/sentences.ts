// Sentence boundaries inside the text of one block. Only offsets are returned so the caller can keep the
// inline tags and the whitespace between sentences exactly where they were.
import { planText } from '../segment.ts';

export interface Span {
  start: number;
  end: number;
}

/** HTML's whitespace (not U+00A0: a no-break space is content, `10&nbsp;km` stays one unit). */
const HTML_SPACES = /[ \t\n\f\r]+/g;

/** Collapse HTML whitespace runs to one space and trim: what the engine sees of a sentence. */
export function normalizeSpace(text: string): string {
  return text.replace(HTML_SPACES, ' ').replace(/^ | $/g, '');
}

/**
 * Spans of the sentences of `text`, trimmed, in order; none for blank text. The sentence rules are
 * format=text's (`planText`: Intl.Segmenter plus its abbreviation list), applied with HTML whitespace
 * (newlines included) turned into spaces, since a newline in HTML source does not end anything.
 */
export function splitSentences(text: string, locale?: string): Span[] {
  const flat = text.replace(/[\t\n\f\r]/g, ' ');
  const spans: Span[] = [];
  let cursor = 0;
  for (const sentence of planText(flat, locale).segments) {
    const start = flat.indexOf(sentence, cursor);
    if (start < 0) throw new Error('html: sentence not found in its own text');
    spans.push({ start, end: start + sentence.length });
    cursor = start + sentence.length;
  }
  return spans;
}
