// TMX 1.4b read as a stream: bytes in, units out, a few at a time, so a file of a million units is read in bounded
// memory. Each problem is a MemoryFileError naming the line and the reason. The file is refused, never half-read:
//   - a DOCTYPE with an internal subset (entity declarations: XXE, entity expansion) is refused by name; a DOCTYPE
//     naming tmx14.dtd is allowed and never read (saxes reads no DTD, so no entity but XML's five exists);
//   - bytes that are not UTF-8 (or UTF-16 with its byte-order mark) are refused at the line they are on;
//   - a segment over the size limit is refused while it arrives, before it is held whole;
//   - a language code the catalog does not know is refused.
// Inline codes (<bpt>, <ept>, <ph>, <it>, <hi>, <ut>, <sub>) are kept: a segment's plain text leaves the codes' native
// content out (what lookups compare), and its markup is the <seg> content re-serialised (what an export writes back).
import { SaxesParser } from 'saxes';
import { resolveLanguage } from '../languages/catalog.ts';

export class MemoryFileError extends Error {
  constructor(readonly line: number | undefined, reason: string) {
    super(line === undefined ? reason : `Line ${line}: ${reason}`);
    this.name = 'MemoryFileError';
  }
}

export interface TmxVariant {
  lang: string;
  text: string;
  /** The <seg> content as TMX markup, when it has inline codes. */
  markup?: string;
}

export interface TmxUnit {
  line: number;
  /** false for a unit exported as learned (<prop type="x-dragoman-status">unreviewed</prop>). */
  reviewed: boolean;
  source: TmxVariant;
  targets: TmxVariant[];
}

export interface TmxLimits {
  maxSegmentChars: number;
  maxFileBytes: number;
}

export interface TmxHeader {
  /** The header's srclang as a catalog code, undefined for *all*. */
  source: string | undefined;
}

/** Elements whose content is native code, not text. */
const CODES = new Set(['bpt', 'ept', 'ph', 'it', 'ut']);
const INLINE = new Set([...CODES, 'hi', 'sub']);
/** Most characters of text or markup read without an event outside a segment (whitespace between elements, a comment). */
const MAX_RUN = 16 * 1024 * 1024;

/** The property an export writes on a learned unit. */
export const STATUS_PROP = 'x-dragoman-status';

export const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
export const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;');

/** The catalog code of a TMX language code, or a refusal naming it. */
export function tmxLanguage(code: string | undefined, line: number, what: string): string {
  if (!code) throw new MemoryFileError(line, `${what} has no xml:lang.`);
  const lang = resolveLanguage(code.trim());
  if (!lang) throw new MemoryFileError(line, `unknown language code '${code.slice(0, 40)}' in ${what}: use a code such as "en" or "de-DE".`);
  return lang.code;
}

/** A decoder for the file's encoding (UTF-8 unless a UTF-16 byte-order mark says otherwise), refusing bad bytes. */
function decoderFor(first: Uint8Array): TextDecoder {
  if (first[0] === 0xff && first[1] === 0xfe) return new TextDecoder('utf-16le', { fatal: true });
  if (first[0] === 0xfe && first[1] === 0xff) return new TextDecoder('utf-16be', { fatal: true });
  return new TextDecoder('utf-8', { fatal: true });
}

/**
 * Units of a TMX file, in batches (one per chunk of input). `fallbackSource` is the source language when the
 * header says *all* or nothing. The header is read before the first unit.
 */
export async function* readTmx(input: AsyncIterable<Uint8Array>, limits: TmxLimits, fallbackSource?: string): AsyncGenerator<TmxUnit[], TmxHeader> {
  const parser = new SaxesParser({ position: true });
  let batch: TmxUnit[] = [];
  let header: TmxHeader | undefined;
  let source: string | undefined = fallbackSource;
  let sawRoot = false;
  let lastEvent = 0;
  // The unit being read.
  let tu: { line: number; srclang?: string | undefined; variants: TmxVariant[]; reviewed: boolean } | undefined;
  let prop: string | undefined;
  let tuv: { lang: string; line: number } | undefined;
  let seg: { text: string; markup: string; codes: number; inCode: number; start: number } | undefined;
  const stack: string[] = [];
  const line = () => parser.line;

  parser.on('doctype', (d) => {
    if (d.includes('[')) {
      throw new MemoryFileError(line(), 'the DOCTYPE declares entities (an internal subset): refused, as it could read local files (XXE) or expand without bound. TMX needs no entity declarations.');
    }
  });
  parser.on('error', (err) => {
    const reason = err.message.replace(/^(?:[^:\s]*:)?\d+:\d+: /, '').replace(/\.$/, '');
    throw new MemoryFileError(line(), /undefined entity/i.test(reason) ? `${reason}: only XML's own entities (&amp; &lt; &gt; &quot; &apos;) and character references are read.` : `not well-formed XML: ${reason}.`);
  });
  parser.on('opentag', (tag) => {
    lastEvent = parser.position;
    const name = tag.name;
    const attrs = tag.attributes as Record<string, string>;
    if (stack.length === 0) {
      sawRoot = true;
      if (name !== 'tmx') throw new MemoryFileError(line(), `the root element is <${name.slice(0, 40)}>, not <tmx>: this is not a TMX file.`);
    }
    stack.push(name);
    if (seg) {
      if (!INLINE.has(name)) throw new MemoryFileError(line(), `<${name.slice(0, 40)}> inside <seg>: a segment holds text and the inline codes <bpt>, <ept>, <ph>, <it>, <hi>, <ut>, <sub>.`);
      seg.codes++;
      if (CODES.has(name)) seg.inCode++;
      seg.markup += `<${name}${Object.entries(attrs).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('')}${tag.isSelfClosing ? '/>' : '>'}`;
      return;
    }
    switch (name) {
      case 'header': {
        const s = attrs.srclang;
        source = s && s !== '*all*' ? tmxLanguage(s, line(), 'the header\'s srclang') : fallbackSource;
        header = { source };
        break;
      }
      case 'tu':
        tu = { line: line(), reviewed: true, srclang: attrs.srclang && attrs.srclang !== '*all*' ? tmxLanguage(attrs.srclang, line(), '<tu srclang>') : undefined, variants: [] };
        break;
      case 'prop':
        if (tu && attrs.type === STATUS_PROP) prop = '';
        break;
      case 'tuv':
        if (!tu) throw new MemoryFileError(line(), '<tuv> outside a <tu>.');
        tuv = { lang: tmxLanguage(attrs['xml:lang'] ?? attrs.lang, line(), '<tuv>'), line: line() };
        break;
      case 'seg':
        if (!tuv) throw new MemoryFileError(line(), '<seg> outside a <tuv>.');
        seg = { text: '', markup: '', codes: 0, inCode: 0, start: parser.position };
        break;
    }
  });
  parser.on('text', (t) => {
    lastEvent = parser.position;
    if (prop !== undefined && prop.length < 100) prop += t;
    if (!seg) return;
    seg.markup += escapeText(t);
    if (seg.inCode === 0) seg.text += t;
    if (seg.text.length > limits.maxSegmentChars) tooLong();
  });
  parser.on('closetag', (tag) => {
    lastEvent = parser.position;
    const name = tag.name;
    stack.pop();
    if (seg && name !== 'seg') {
      if (CODES.has(name)) seg.inCode--;
      if (!tag.isSelfClosing) seg.markup += `</${name}>`;
      return;
    }
    switch (name) {
      case 'seg': {
        const s = seg!;
        seg = undefined;
        tu!.variants.push({ lang: tuv!.lang, text: s.text, ...(s.codes ? { markup: s.markup } : {}) });
        break;
      }
      case 'tuv':
        tuv = undefined;
        break;
      case 'prop':
        if (prop !== undefined && tu) tu.reviewed = prop.trim() !== 'unreviewed';
        prop = undefined;
        break;
      case 'tu': {
        const u = tu!;
        tu = undefined;
        const src = u.srclang ?? source;
        if (!src) throw new MemoryFileError(u.line, 'no source language: the header\'s srclang is *all* or missing; give the memory\'s source language.');
        const s = u.variants.find((v) => v.lang === src);
        if (!s) {
          batch.push({ line: u.line, reviewed: u.reviewed, source: { lang: src, text: '' }, targets: [] });
          break;
        }
        batch.push({ line: u.line, reviewed: u.reviewed, source: s, targets: u.variants.filter((v) => v !== s) });
        break;
      }
    }
  });

  function tooLong(): never {
    throw new MemoryFileError(line(), `a segment has more than ${limits.maxSegmentChars} characters (DRAGOMAN_MEMORY_MAX_SEGMENT_CHARS).`);
  }

  let decoder: TextDecoder | undefined;
  let bytes = 0;
  for await (const chunk of input) {
    if (!chunk.length) continue;
    bytes += chunk.length;
    if (bytes > limits.maxFileBytes) throw new MemoryFileError(undefined, `the file is larger than ${limits.maxFileBytes} bytes (DRAGOMAN_MEMORY_MAX_FILE_BYTES).`);
    decoder ??= decoderFor(chunk);
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      // The line of the first bad byte: the lines of this chunk before it, after those already read.
      const lenient = new TextDecoder(decoder.encoding).decode(chunk);
      const before = lenient.slice(0, Math.max(0, lenient.indexOf('\uFFFD')));
      const at = parser.line + (before.match(/\n/g)?.length ?? 0);
      throw new MemoryFileError(at, 'the file is not valid UTF-8 (nor UTF-16 with a byte-order mark): its bytes cannot be read as text.');
    }
    // Read in slices, so an over-long segment or run is stopped within one slice of the limit.
    for (let at = 0; at < text.length; at += 65_536) {
      parser.write(text.slice(at, at + 65_536));
      const run = parser.position - lastEvent;
      if (seg && parser.position - seg.start > limits.maxSegmentChars * 8 + 65_536) tooLong();
      if (run > MAX_RUN) throw new MemoryFileError(line(), `more than ${MAX_RUN} characters without an element (an over-long text, comment or declaration).`);
    }
    if (batch.length) {
      const out = batch;
      batch = [];
      yield out;
    }
  }
  try {
    if (decoder) parser.write(decoder.decode());
  } catch (err) {
    if (err instanceof MemoryFileError) throw err;
    throw new MemoryFileError(parser.line, 'the file ends inside a multi-byte character: it is not valid UTF-8.');
  }
  parser.close();
  if (!sawRoot) throw new MemoryFileError(undefined, 'the file is empty or has no root element: expected a TMX document <tmx>.');
  if (batch.length) yield batch;
  return header ?? { source };
}
