// Plain text: each paragraph (lines up to a blank line) is a unit, its line breaks as <br> so they come back
// where the words around them went; blank lines, indentation before a paragraph and trailing spaces are kept.
import { decodeText as decodeFragmentText, escapeText, linesToFragment, tokenizeFragment } from './fragment.ts';
import { PieceWriter } from './pieces.ts';
import { decodeText, extensionOf, textHead } from './text-file.ts';
import type { DocumentFormat } from './types.ts';

const LETTER = /\p{L}/u;

/** A translated fragment of escaped text and <br> back to text, breaks written as `newline`. */
export function fragmentToText(html: string, newline: string): string {
  return tokenizeFragment(html)
    .map((t) => (t.kind === 'text' ? decodeFragmentText(t.text) : t.kind === 'void' && t.name === 'br' ? newline : ''))
    .join('');
}

/** Splits `text` into paragraphs: units for those with letters, the rest (blank lines, margins) kept. */
export function addParagraphs(out: PieceWriter, text: string, newline: string): void {
  // Paragraph separators: a line break followed by one or more blank (or whitespace-only) lines.
  const parts = text.split(/(\r?\n(?:[ \t]*\r?\n)+)/);
  parts.forEach((part, i) => {
    if (i % 2 === 1 || !LETTER.test(part)) return out.keep(part);
    const lead = /^\s*/.exec(part)![0];
    const trail = /\s*$/.exec(part.slice(lead.length))![0];
    const body = part.slice(lead.length, part.length - trail.length);
    out.keep(lead);
    out.unit(linesToFragment(body.split(/\r?\n/), escapeText), (t) => fragmentToText(t, newline));
    out.keep(trail);
  });
}

export const plainText: DocumentFormat = {
  id: 'txt',
  mediaType: 'text/plain; charset=utf-8',
  extension: 'txt',
  // The last resort for text: any file that decodes as text.
  sniff: (bytes) => bytes.length === 0 || textHead(bytes) !== '',
  async open(bytes, limits) {
    const file = decodeText(bytes, 'text');
    const out = new PieceWriter(limits.maxUnits);
    addParagraphs(out, file.text, file.newline);
    return out.document(file.encoding);
  },
};

export const isTextName = (filename: string): boolean => ['txt', 'text', ''].includes(extensionOf(filename));
