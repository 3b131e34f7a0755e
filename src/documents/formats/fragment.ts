// Units are HTML fragments in a small tag vocabulary each format chooses; the translated fragment that comes back
// from the html path holds only those tags (its splicing never adds one) and text escaped as HTML. These turn a
// format's text into such a fragment and a translated fragment back into tokens the format writes out.
import { escapeHtmlText } from '../../text/html/index.ts';

export type FragmentToken =
  | { kind: 'text'; text: string }
  /** `key`: the value of the tag's data-k attribute (what the format stored for it), when it has one. */
  | { kind: 'open'; name: string; key: number | undefined }
  | { kind: 'close'; name: string }
  | { kind: 'void'; name: string; key: number | undefined };

const VOID = new Set(['br', 'img', 'wbr', 'hr']);
const TAG = /<(\/?)([A-Za-z][A-Za-z0-9]*)((?:\s+[^>]*?)?)\s*(\/?)>/g;

/** Plain text as fragment text (`&`, `<`, `>` and no-break spaces escaped). */
export function escapeText(text: string): string {
  return escapeHtmlText(text);
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Fragment text back to plain text: the entities our escaping (and the translator's) writes. */
export function decodeText(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (all, name: string) => {
    if (name[0] === '#') {
      const cp = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : all;
    }
    return NAMED[name] ?? all;
  });
}

/** The tokens of a (translated) fragment, text left escaped (a format decodes it the way it needs). */
export function tokenizeFragment(html: string): FragmentToken[] {
  const out: FragmentToken[] = [];
  let at = 0;
  for (const m of html.matchAll(TAG)) {
    if (m.index > at) out.push({ kind: 'text', text: html.slice(at, m.index) });
    at = m.index + m[0].length;
    const name = m[2]!.toLowerCase();
    const key = /\bdata-k="(\d+)"/.exec(m[3] ?? '');
    const k = key ? Number(key[1]) : undefined;
    if (m[1]) out.push({ kind: 'close', name });
    else if (VOID.has(name) || m[4]) out.push({ kind: 'void', name, key: k });
    else out.push({ kind: 'open', name, key: k });
  }
  if (at < html.length) out.push({ kind: 'text', text: html.slice(at) });
  return out;
}

/** A fragment's plain text (tags dropped, `<br>` as a newline): for detection samples. */
export function fragmentText(html: string): string {
  return tokenizeFragment(html)
    .map((t) => (t.kind === 'text' ? decodeText(t.text) : t.kind === 'void' && t.name === 'br' ? '\n' : ''))
    .join('');
}

/** Lines joined with `<br>` so the html path keeps the breaks (it normalises whitespace inside a paragraph). */
export function linesToFragment(lines: readonly string[], escape: (line: string) => string = escapeText): string {
  return lines.map(escape).join('<br>');
}
