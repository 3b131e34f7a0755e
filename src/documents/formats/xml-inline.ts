// The inside of an XML element with inline markup (XLIFF's <g>, <pc>, <mrk>, <ph>...) as a fragment and back:
// elements whose content is text become <span> around it, elements that hold codes (and comments, processing
// instructions) become opaque <img> tokens; each tag's source is kept aside and written back byte for byte.
import { decodeText, escapeText, tokenizeFragment } from './fragment.ts';
import { escapeXmlText } from './xml-scan.ts';

const TOKEN = /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<(\/?)([\w:.-]+)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;

export interface InlineXml {
  html: string;
  /** Written back from a translated fragment. */
  render(translation: string): string;
}

/** `paired`: local names whose content is translated text; any other element is kept whole. */
export function xmlInline(inner: string, paired: ReadonlySet<string>): InlineXml {
  const kept: { open: string; close: string }[] = [];
  let html = '';
  let at = 0;
  /** Depth inside an element kept whole (its content is part of the opaque token). */
  let opaqueStart = -1;
  let opaqueDepth = 0;
  const text = (s: string) => {
    // XML text is HTML text but for a bare '>' (allowed in both) and &apos; (HTML5 knows it): kept as is.
    if (opaqueDepth === 0) html += s;
  };
  for (const m of inner.matchAll(TOKEN)) {
    text(inner.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[1] !== undefined) {
      if (opaqueDepth === 0) html += escapeText(m[1]);
      continue;
    }
    const name = m[3];
    if (!name) {
      // Comment or processing instruction.
      if (opaqueDepth === 0) {
        kept.push({ open: m[0], close: '' });
        html += `<img data-k="${kept.length - 1}">`;
      }
      continue;
    }
    const local = name.includes(':') ? name.slice(name.indexOf(':') + 1) : name;
    const closing = m[2] === '/';
    const selfClosing = m[5] === '/';
    if (opaqueDepth > 0) {
      if (selfClosing) continue;
      opaqueDepth += closing ? -1 : 1;
      if (opaqueDepth === 0) {
        kept.push({ open: inner.slice(opaqueStart, at), close: '' });
        html += `<img data-k="${kept.length - 1}">`;
      }
      continue;
    }
    if (paired.has(local) && !selfClosing) {
      if (closing) html += '</span>';
      else {
        kept.push({ open: m[0], close: `</${name}>` });
        html += `<span data-k="${kept.length - 1}">`;
      }
      continue;
    }
    if (selfClosing) {
      kept.push({ open: m[0], close: '' });
      html += `<img data-k="${kept.length - 1}">`;
      continue;
    }
    opaqueStart = m.index;
    opaqueDepth = 1;
  }
  text(inner.slice(at));
  return {
    html,
    render(translation) {
      const open: number[] = [];
      let out = '';
      for (const t of tokenizeFragment(translation)) {
        if (t.kind === 'text') out += escapeXmlText(decodeText(t.text));
        else if (t.kind === 'void') out += t.key !== undefined ? kept[t.key]?.open ?? '' : '';
        else if (t.kind === 'open') {
          if (t.key === undefined) continue;
          open.push(t.key);
          out += kept[t.key]?.open ?? '';
        } else {
          const k = open.pop();
          if (k !== undefined) out += kept[k]?.close ?? '';
        }
      }
      return out;
    },
  };
}
