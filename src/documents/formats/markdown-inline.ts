// Markdown inline syntax as a fragment: emphasis as <b>/<i>, links as <a> (the target kept aside, byte-exact),
// code spans, images, autolinks, inline HTML and backslash escapes as opaque <img> tokens whose source is kept
// aside. Rendering a translated fragment puts every kept piece back where its tag went.
import { decodeText, escapeText, tokenizeFragment } from './fragment.ts';

/** What a tag of a unit stands for: the source written for its opening, and for its closing (paired tags). */
export interface Kept {
  open: string;
  close: string;
}

export class InlineTable {
  readonly kept: Kept[] = [];

  add(open: string, close = ''): number {
    this.kept.push({ open, close });
    return this.kept.length - 1;
  }

  /** A translated fragment as Markdown: text unescaped, tags as their kept source, <br> as `lineBreak(i)`. */
  render(html: string, lineBreak: (i: number) => string): string {
    const open: number[] = [];
    let breaks = 0;
    let out = '';
    for (const t of tokenizeFragment(html)) {
      if (t.kind === 'text') out += decodeText(t.text);
      else if (t.kind === 'void') out += t.name === 'br' ? lineBreak(breaks++) : t.key !== undefined ? this.kept[t.key]?.open ?? '' : '';
      else if (t.kind === 'open') {
        if (t.key === undefined) continue;
        open.push(t.key);
        out += this.kept[t.key]?.open ?? '';
      } else {
        const k = open.pop();
        if (k !== undefined) out += this.kept[k]?.close ?? '';
      }
    }
    return out;
  }
}

const PUNCT = /[!-/:-@[-`{-~]/;
const SPACE = /\s/;
const WORD = /[\p{L}\p{N}]/u;

/** The index just past the bracket that closes the one at `start` (`[`/`]` or `(`/`)`), or -1. */
function matching(s: string, start: number, openCh: string, closeCh: string): number {
  let depth = 0;
  for (let i = start; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') i++;
    else if (c === '`') {
      const run = /^`+/.exec(s.slice(i))![0];
      const end = s.indexOf(run, i + run.length);
      if (end > 0) i = end + run.length - 1;
    } else if (c === openCh) depth++;
    else if (c === closeCh && --depth === 0) return i + 1;
  }
  return -1;
}

/** Where the emphasis `marker` opened at `from` closes (index of the closing marker), or -1. */
function closingEmphasis(s: string, from: number, marker: string): number {
  for (let j = from; j < s.length; j++) {
    const c = s[j]!;
    if (c === '\\') { j++; continue; }
    if (c === '`') {
      const run = /^`+/.exec(s.slice(j))![0];
      const end = s.indexOf(run, j + run.length);
      if (end > 0) { j = end + run.length - 1; continue; }
    }
    if (!s.startsWith(marker, j) || j === from) continue;
    if (SPACE.test(s[j - 1]!)) continue;
    const after = s[j + marker.length] ?? '';
    if (marker.length === 1 && after === marker[0]) { j++; continue; } // part of a longer run
    if (marker[0] === '_' && WORD.test(after)) continue;
    return j;
  }
  return -1;
}

/** Markdown inline text as a fragment; kept pieces go into `table`. */
export function inlineToFragment(s: string, table: InlineTable): string {
  let out = '';
  let text = '';
  const flush = () => {
    out += escapeText(text);
    text = '';
  };
  const opaque = (source: string) => {
    flush();
    out += `<img data-k="${table.add(source)}">`;
  };
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    const rest = s.slice(i);
    if (c === '\\' && i + 1 < s.length && PUNCT.test(s[i + 1]!)) {
      opaque(s.slice(i, i + 2));
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(rest)![0];
      const end = s.indexOf(run, i + run.length);
      if (end > 0 && s[end + run.length] !== '`') {
        opaque(s.slice(i, end + run.length));
        i = end + run.length;
        continue;
      }
      text += run;
      i += run.length;
      continue;
    }
    if (c === '<') {
      const m = /^<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>]+|\/?[A-Za-z][^<>]*|!--[\s\S]*?--)>/.exec(rest);
      if (m) {
        opaque(m[0]);
        i += m[0].length;
        continue;
      }
    }
    if (c === '!' && s[i + 1] === '[') {
      const close = matching(s, i + 1, '[', ']');
      if (close > 0 && (s[close] === '(' || s[close] === '[')) {
        const end = matching(s, close, s[close]!, s[close] === '(' ? ')' : ']');
        if (end > 0) {
          opaque(s.slice(i, end));
          i = end;
          continue;
        }
      }
    }
    if (c === '[') {
      const close = matching(s, i, '[', ']');
      if (close > 0 && (s[close] === '(' || s[close] === '[')) {
        const end = matching(s, close, s[close]!, s[close] === '(' ? ')' : ']');
        if (end > 0) {
          flush();
          const k = table.add('[', s.slice(close - 1, end));
          out += `<a data-k="${k}">${inlineToFragment(s.slice(i + 1, close - 1), table)}</a>`;
          i = end;
          continue;
        }
      }
    }
    if (c === '*' || c === '_') {
      const marker = s[i + 1] === c ? c + c : c;
      const next = s[i + marker.length] ?? '';
      const prev = i > 0 ? s[i - 1]! : ' ';
      if (next !== '' && !SPACE.test(next) && next !== c && !(c === '_' && WORD.test(prev))) {
        const j = closingEmphasis(s, i + marker.length, marker);
        if (j > i + marker.length) {
          flush();
          const tag = marker.length === 2 ? 'b' : 'i';
          const k = table.add(marker, marker);
          out += `<${tag} data-k="${k}">${inlineToFragment(s.slice(i + marker.length, j), table)}</${tag}>`;
          i = j + marker.length;
          continue;
        }
      }
      text += marker;
      i += marker.length;
      continue;
    }
    text += c;
    i++;
  }
  flush();
  return out;
}
