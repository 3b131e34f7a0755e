// A memory as TMX 1.4b, written a page of segments at a time (an export of a million segments is never held
// whole): one <tu> per stored segment, source and target <tuv>, the TMX inline markup where the segment has it,
// and learned segments marked with <prop type="x-dragoman-status">unreviewed</prop>. readTmx reads it back to
// the same segments.
import { escapeAttr, escapeText, STATUS_PROP } from './tmx-read.ts';
import type { Memory, Segment } from './types.ts';

export async function* writeTmx(memory: Memory, pages: AsyncIterable<Segment[]>, version: string): AsyncGenerator<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n<tmx version="1.4">\n' +
    `  <header creationtool="Dragoman" creationtoolversion="${escapeAttr(version)}" segtype="sentence" o-tmf="dragoman" adminlang="en" ` +
    `srclang="${escapeAttr(memory.source)}" datatype="plaintext"/>\n  <body>\n`;
  for await (const page of pages) {
    let out = '';
    for (const s of page) {
      out += '    <tu>\n';
      if (!s.reviewed) out += `      <prop type="${STATUS_PROP}">unreviewed</prop>\n`;
      out += `      <tuv xml:lang="${escapeAttr(memory.source)}"><seg>${s.sourceMarkup ?? escapeText(s.source)}</seg></tuv>\n`;
      out += `      <tuv xml:lang="${escapeAttr(s.targetLang)}"><seg>${s.targetMarkup ?? escapeText(s.target)}</seg></tuv>\n`;
      out += '    </tu>\n';
    }
    if (out) yield out;
  }
  yield '  </body>\n</tmx>\n';
}
