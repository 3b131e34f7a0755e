// A stored segment's inline codes (TMX <bpt>, <ept>, <ph>, <it>, <hi>) carried into a translation: its target as
// text with a marker where each code of the source that stands inside the sentence goes (src/text/inline-codes.ts),
// so the html assembler puts the sentence's own tags there. Codes pair between source and target by their `i`
// (<bpt>/<ept>) or `x` attribute, else by order among codes of the same element.
import { codeMarker, nonSpaceCount, withoutMarkers, type CodeKind } from '../text/inline-codes.ts';
import type { Segment } from './types.ts';

const TAG = /<(\/?)(bpt|ept|ph|it|ut|hi|sub)((?:\s+[\w:.-]+="[^"]*")*)\s*(\/?)>/g;
/** Elements whose content is native code, not text. */
const CODES = new Set(['bpt', 'ept', 'ph', 'it', 'ut']);

interface Code {
  /** What pairs it with its counterpart on the other side. */
  key: string;
  kind: CodeKind;
  /** Non-space characters of text before it. */
  before: number;
  /** Offset in the text (without codes) where it stands. */
  at: number;
}

function decode(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos);/g, (_a, n: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" })[n]!);
}

/** The text of TMX `<seg>` markup (code content left out) and its codes in order. */
function readSeg(markup: string): { text: string; codes: Code[] } {
  const codes: Code[] = [];
  const seen = new Map<string, number>();
  let text = '';
  let depth = 0;
  let cursor = 0;
  const add = (name: string, kind: CodeKind, attrs: string) => {
    const id = /\s(?:i|x)="([^"]*)"/.exec(attrs)?.[1];
    const base = `${name}/${kind}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    codes.push({ key: id !== undefined && name !== 'hi' ? `${base}#${id}` : `${base}@${n}`, kind, before: nonSpaceCount(text), at: text.length });
  };
  for (const m of markup.matchAll(TAG)) {
    if (depth === 0) text += decode(markup.slice(cursor, m.index));
    cursor = m.index + m[0].length;
    const [, closing, name, attrs = '', self] = m as unknown as [string, string, string, string, string];
    if (name === 'sub') continue;
    if (name === 'hi') {
      if (depth === 0 && !self) add('hi', closing ? 'close' : 'open', attrs);
      continue;
    }
    if (!CODES.has(name)) continue;
    if (closing) {
      depth = Math.max(0, depth - 1);
      continue;
    }
    if (depth === 0) {
      const pos = /\spos="(begin|end)"/.exec(attrs)?.[1];
      const kind: CodeKind = name === 'bpt' || pos === 'begin' ? 'open' : name === 'ept' || pos === 'end' ? 'close' : 'opaque';
      add(name, kind, attrs);
    }
    if (!self) depth++;
  }
  if (depth === 0) text += decode(markup.slice(cursor));
  return { text, codes };
}

/**
 * The target of an exact segment as the html path takes it: the stored text, with markers for the codes of the
 * source that stand inside the sentence when source and target both have markup; the stored text alone otherwise.
 */
export function markedTarget(s: Pick<Segment, 'target' | 'sourceMarkup' | 'targetMarkup'>): string {
  const target = withoutMarkers(s.target);
  if (!s.sourceMarkup || !s.targetMarkup) return target;
  const source = readSeg(s.sourceMarkup);
  const total = nonSpaceCount(source.text);
  const inside = source.codes.filter((c) => c.before > 0 && c.before < total);
  if (!inside.length) return target;
  const index = new Map(inside.map((c, i) => [c.key, i]));
  const read = readSeg(s.targetMarkup);
  // The target's text must be what is stored (a segment changed since its import keeps no markup).
  if (withoutMarkers(read.text).trim() !== target) return target;
  let out = '';
  let cursor = 0;
  for (const c of read.codes) {
    const i = index.get(c.key);
    if (i === undefined) continue;
    out += withoutMarkers(read.text.slice(cursor, c.at));
    cursor = c.at;
    out += codeMarker({ index: i, kind: inside[i]!.kind, before: inside[i]!.before });
  }
  return out + withoutMarkers(read.text.slice(cursor));
}
