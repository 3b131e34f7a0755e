// Markdown (CommonMark with GitHub tables): paragraphs, headings, list items, quotes and table cells are units;
// fenced and indented code blocks, HTML blocks, link reference definitions, thematic breaks, table delimiter rows
// and front-matter keys are kept byte-exact. Inline syntax: markdown-inline.ts.
import { InlineTable, inlineToFragment } from './markdown-inline.ts';
import { PieceWriter } from './pieces.ts';
import { decodeText, extensionOf } from './text-file.ts';
import type { DocumentFormat } from './types.ts';
import { translatableScalar, frontMatterValue } from './front-matter.ts';

const LETTER = /\p{L}/u;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^( {0,3}#{1,6}[ \t]+)(.*?)([ \t]+#+[ \t]*)?$/;
const BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|=+[ \t]*)$/;
const HTML_BLOCK = /^ {0,3}<(?:[A-Za-z][A-Za-z0-9-]*(?:\s|\/?>|$)|\/[A-Za-z]|!--|\?|![A-Z])/;
const REFERENCE = /^ {0,3}\[[^\]]+\]:/;
const DELIMITER_ROW = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const CONTAINER = /^[ \t]*(?:>[ \t]?)*[ \t]*(?:(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$))?(?:\[[ xX]\][ \t]+)?/;
const LIST_MARKER = /(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)/;

interface Line {
  text: string;
  /** The line break after it ('' for the last line). */
  end: string;
}

function linesOf(text: string): Line[] {
  const out: Line[] = [];
  for (const m of text.matchAll(/([^\r\n]*)(\r?\n|$)/g)) {
    if (m[0] === '' && m.index === text.length && out.length > 0) break;
    out.push({ text: m[1]!, end: m[2]! });
    if (m[2] === '') break;
  }
  return out;
}

class MarkdownWriter extends PieceWriter {
  /** A unit of inline Markdown; its line `prefixes[i + 1]` and line breaks are written for its i-th <br>. */
  inline(lines: readonly Line[], prefixes: readonly string[]): void {
    const table = new InlineTable();
    const html = lines.map((l) => inlineToFragment(l.text, table)).join('<br>');
    this.unit(html, (t) =>
      table.render(t, (i) => {
        const at = Math.min(i, lines.length - 2);
        return (lines[at]?.end || '\n') + (prefixes[at + 1] ?? '');
      }),
    );
  }

  /** One line: prefix kept, content a unit when it has letters, the rest kept. */
  lineUnit(prefix: string, content: string, suffix: string, end: string): void {
    this.keep(prefix);
    if (LETTER.test(content)) this.inline([{ text: content, end: '' }], ['']);
    else this.keep(content);
    this.keep(suffix + end);
  }
}

function tableRow(out: MarkdownWriter, line: Line): void {
  // Cells between unescaped pipes outside code spans; each cell's padding kept.
  let cell = '';
  let inCode = '';
  for (let i = 0; i < line.text.length; i++) {
    const c = line.text[i]!;
    if (c === '\\' && i + 1 < line.text.length) {
      cell += c + line.text[++i];
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(line.text.slice(i))![0];
      inCode = inCode === run ? '' : inCode || run;
      cell += run;
      i += run.length - 1;
      continue;
    }
    if (c === '|' && !inCode) {
      cellUnit(out, cell);
      out.keep('|');
      cell = '';
      continue;
    }
    cell += c;
  }
  cellUnit(out, cell);
  out.keep(line.end);
}

function cellUnit(out: MarkdownWriter, cell: string): void {
  const lead = /^\s*/.exec(cell)![0];
  const trail = /\s*$/.exec(cell.slice(lead.length))![0];
  out.lineUnit(lead, cell.slice(lead.length, cell.length - trail.length), trail, '');
}

export function markdownPieces(text: string): MarkdownWriter {
  const out = new MarkdownWriter();
  const lines = linesOf(text);
  let i = 0;
  if (lines[0]?.text === '---') i = frontMatter(out, lines);
  let para: Line[] = [];
  let prefixes: string[] = [];
  let inList = false;
  const flush = () => {
    if (para.length === 0) return;
    const last = para[para.length - 1]!;
    // The last line's break is kept after the unit (a unit's own breaks are those between its lines).
    out.inline(para.map((l, k) => (k === para.length - 1 ? { text: l.text, end: '' } : l)), prefixes);
    out.keep(last.end);
    para = [];
    prefixes = [];
  };
  const keepLine = (l: Line) => out.keep(l.text + l.end);
  while (i < lines.length) {
    const line = lines[i]!;
    const t = line.text;
    if (t.trim() === '') {
      flush();
      keepLine(line);
      i++;
      continue;
    }
    const fence = FENCE.exec(t);
    if (fence) {
      flush();
      inList = false;
      const marker = fence[1]!;
      keepLine(line);
      i++;
      while (i < lines.length) {
        const l = lines[i++]!;
        keepLine(l);
        const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`);
        if (close.test(l.text)) break;
      }
      continue;
    }
    if (para.length === 0 && !inList && /^( {4}|\t)/.test(t)) {
      keepLine(line); // indented code
      i++;
      continue;
    }
    const heading = HEADING.exec(t);
    if (heading) {
      flush();
      inList = false;
      out.lineUnit(heading[1]!, heading[2]!, heading[3] ?? '', line.end);
      i++;
      continue;
    }
    if (BREAK.test(t) || REFERENCE.test(t) || (para.length === 0 && HTML_BLOCK.test(t))) {
      const html = para.length === 0 && HTML_BLOCK.test(t);
      flush();
      keepLine(line);
      i++;
      // An HTML block runs to a blank line.
      while (html && i < lines.length && lines[i]!.text.trim() !== '') keepLine(lines[i++]!);
      continue;
    }
    if (t.includes('|') && i + 1 < lines.length && DELIMITER_ROW.test(lines[i + 1]!.text) && lines[i + 1]!.text.includes('-')) {
      flush();
      inList = false;
      tableRow(out, line);
      keepLine(lines[i + 1]!);
      i += 2;
      while (i < lines.length && lines[i]!.text.includes('|') && lines[i]!.text.trim() !== '') tableRow(out, lines[i++]!);
      continue;
    }
    const prefix = CONTAINER.exec(t)![0];
    const marker = LIST_MARKER.test(prefix.replace(/^[ \t>]*/, ''));
    if (marker) {
      flush();
      inList = true;
    } else if (!/^[ \t]/.test(t)) {
      inList = false; // a line at the margin ends the list (an indented one continues its item)
    }
    if (para.length === 0) out.keep(prefix);
    para.push({ text: t.slice(prefix.length), end: line.end });
    prefixes.push(prefix);
    if (!LETTER.test(t.slice(prefix.length)) && para.length === 1) {
      // Nothing to translate on a lone line of symbols: keep it.
      para = [];
      prefixes = [];
      out.keep(t.slice(prefix.length) + line.end);
    }
    i++;
  }
  flush();
  return out;
}

/** YAML front matter: keys and structure kept, plain string values translated. Returns the next line's index. */
function frontMatter(out: MarkdownWriter, lines: readonly Line[]): number {
  const end = lines.findIndex((l, k) => k > 0 && (l.text === '---' || l.text === '...'));
  if (end < 0) return 0;
  out.keep(lines[0]!.text + lines[0]!.end);
  for (let k = 1; k < end; k++) {
    const l = lines[k]!;
    const m = /^([ \t]*(?:- )?[A-Za-z0-9_.-]+:[ \t]+)(.+?)([ \t]*)$/.exec(l.text);
    const scalar = m ? translatableScalar(m[2]!) : undefined;
    if (!m || !scalar) {
      out.keep(l.text + l.end);
      continue;
    }
    out.keep(m[1]!);
    out.unit(scalar.html, (t) => frontMatterValue(t, scalar.quote));
    out.keep(m[3]! + l.end);
  }
  out.keep(lines[end]!.text + lines[end]!.end);
  return end + 1;
}

export const markdown: DocumentFormat = {
  id: 'markdown',
  mediaType: 'text/markdown; charset=utf-8',
  extension: 'md',
  sniff: (_bytes, filename) => ['md', 'markdown', 'mdown', 'mkd'].includes(extensionOf(filename)),
  async open(bytes) {
    const file = decodeText(bytes, 'Markdown');
    return markdownPieces(file.text).document(file.encoding);
  },
};
