// A stored translation with the places of its inline codes: how a translation memory's target (TMX <bpt>, <ept>,
// <ph>, <it>) tells the html assembler where the tags of a sentence go, instead of the positional guess of
// html/align.ts. Each code is a marker in the text: the code's index among the codes of the stored source, its
// kind, and how many non-space characters of the source stood before it. The assembler takes the markers only
// when they describe the sentence's own tags (same count, kinds and places in the source); otherwise it drops them
// and places the tags as for a machine translation.
//
// Markers are written between U+FDD0 and U+FDD1, Unicode noncharacters reserved for a program's internal use:
// they never occur in text a client sends (the service removes them from stored targets before marking).

export type CodeKind = 'open' | 'close' | 'opaque';

export interface MarkedCode {
  /** Index of the code among the marked codes of the source, in source order. */
  index: number;
  kind: CodeKind;
  /** Non-space characters of the source before the code. */
  before: number;
}

const START = '\uFDD0';
const END = '\uFDD1';
const KIND_CHAR: Record<CodeKind, string> = { open: 'o', close: 'c', opaque: 'p' };
const MARKER = /\uFDD0(\d{1,5})([ocp])(\d{1,7})\uFDD1/g;

export function codeMarker(code: MarkedCode): string {
  return `${START}${code.index}${KIND_CHAR[code.kind]}${code.before}${END}`;
}

/** Text with the marker characters taken out (what is stored may hold anything). */
export function withoutMarkers(text: string): string {
  return text.replace(/[\uFDD0\uFDD1]/g, '');
}

/** The text without its markers, and where each marked code goes in it (undefined: no marker in the text). */
export function readMarkers(text: string): { text: string; codes: (MarkedCode & { at: number })[] } | undefined {
  if (!text.includes(START)) return undefined;
  const codes: (MarkedCode & { at: number })[] = [];
  let out = '';
  let cursor = 0;
  for (const m of text.matchAll(MARKER)) {
    out += text.slice(cursor, m.index);
    cursor = m.index + m[0].length;
    const kind = m[2] === 'o' ? 'open' : m[2] === 'c' ? 'close' : 'opaque';
    codes.push({ index: Number(m[1]), kind, before: Number(m[3]), at: out.length });
  }
  out += text.slice(cursor);
  const clean = withoutMarkers(out);
  // A stray marker character: the offsets would be off, so the codes are not used.
  return { text: clean, codes: clean === out ? codes.sort((a, b) => a.index - b.index) : [] };
}

/** Non-space characters in `text` (how markers and tags are compared: whitespace differs between the two). */
export function nonSpaceCount(text: string): number {
  let n = 0;
  for (const ch of text) if (!/\s/u.test(ch)) n++;
  return n;
}
