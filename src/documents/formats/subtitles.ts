// SRT and WebVTT: a cue's text lines are one unit, translated as one sentence and broken again into at most as
// many lines, balanced (cue-lines.ts); a dialogue cue ("- Hi." / "- Hello.") keeps a line per speaker. Cue
// numbers, identifiers, timings, the WEBVTT header and NOTE/STYLE/REGION blocks are kept byte for byte. Inline tags the fragment knows (<i>, <b>,
// <u>) pass as themselves; every other cue tag (<font>, <c.x>, <v Name>, timestamps) is an opaque token put back.
import { balanceLines, isDialogue } from './cue-lines.ts';
import { decodeText as decodeFragment, escapeText, tokenizeFragment } from './fragment.ts';
import { PieceWriter } from './pieces.ts';
import { decodeText, extensionOf, textHead } from './text-file.ts';
import type { DocumentFormat } from './types.ts';

const TIMING = /-->/;
const SRT_TIMING = /^\s*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}\s*-->\s*\d{1,3}:\d{2}:\d{2}[,.]\d{1,3}/;
const PASSED = /^<\/?([ibu])>$/i;

interface Block {
  lines: string[];
  ends: string[];
}

/** Blocks separated by blank lines, with the separators (kept as they are). */
function blocksOf(text: string): (Block | string)[] {
  const out: (Block | string)[] = [];
  const re = /([^\n]*?)(\r?\n|$)/g;
  let block: Block | null = null;
  let sep = '';
  for (const m of text.matchAll(re)) {
    if (m[0] === '' && m.index === text.length) break;
    if (m[1]!.trim() === '') {
      if (block) out.push(block);
      block = null;
      sep += m[0];
    } else {
      if (sep) out.push(sep);
      sep = '';
      block ??= { lines: [], ends: [] };
      block.lines.push(m[1]!);
      block.ends.push(m[2]!);
    }
    if (m[2] === '') break;
  }
  if (block) out.push(block);
  if (sep) out.push(sep);
  return out;
}

/**
 * Cue text lines as a fragment: `escaped` says whether the text is already HTML-escaped (VTT) or raw (SRT);
 * `joiner` goes between the lines (a space: one sentence; <br>: a line each).
 */
function cueFragment(lines: readonly string[], escaped: boolean, kept: string[], joiner: string): string {
  return lines
    .map((line) => {
      let out = '';
      let at = 0;
      for (const m of line.matchAll(/<[^<>]*>/g)) {
        const text = line.slice(at, m.index);
        out += escaped ? text.replace(/&(?![a-zA-Z]+;|#\d+;|#x[0-9a-fA-F]+;)/g, '&amp;') : escapeText(text);
        if (PASSED.test(m[0])) out += m[0].toLowerCase();
        else {
          kept.push(m[0]);
          out += `<img data-k="${kept.length - 1}">`;
        }
        at = m.index + m[0].length;
      }
      const rest = line.slice(at);
      return out + (escaped ? rest.replace(/&(?![a-zA-Z]+;|#\d+;|#x[0-9a-fA-F]+;)/g, '&amp;') : escapeText(rest));
    })
    .map((line) => (joiner === ' ' ? line.trim() : line))
    .join(joiner);
}

function renderCue(html: string, escaped: boolean, kept: readonly string[], newline: string): string {
  return tokenizeFragment(html)
    .map((t) => {
      if (t.kind === 'text') return escaped ? t.text.replace(/&nbsp;/g, '\u00a0') : decodeFragment(t.text);
      if (t.kind === 'void') return t.name === 'br' ? newline : t.key !== undefined ? kept[t.key] ?? '' : '';
      if (['i', 'b', 'u'].includes(t.name)) return t.kind === 'open' ? `<${t.name}>` : `</${t.name}>`;
      return '';
    })
    .join('');
}

function cues(text: string, escaped: boolean, timingLine: (lines: readonly string[]) => number, maxUnits: number): PieceWriter {
  const out = new PieceWriter(maxUnits);
  for (const b of blocksOf(text)) {
    if (typeof b === 'string') {
      out.keep(b);
      continue;
    }
    const t = timingLine(b.lines);
    const head = t < 0 ? b.lines.length : t + 1;
    for (let k = 0; k < head; k++) out.keep(b.lines[k]! + b.ends[k]!);
    const textLines = b.lines.slice(head);
    if (textLines.length === 0) continue;
    const kept: string[] = [];
    const newline = b.ends[head] || '\n';
    if (textLines.length === 1 || isDialogue(textLines)) {
      out.unit(cueFragment(textLines, escaped, kept, '<br>'), (tr) => renderCue(tr, escaped, kept, newline));
    } else {
      // One sentence over several lines: translated whole, then set again on as many lines, balanced.
      out.unit(cueFragment(textLines, escaped, kept, ' '), (tr) =>
        balanceLines(renderCue(tr, escaped, kept, ' '), textLines.length).join(newline));
    }
    out.keep(b.ends[b.lines.length - 1]!);
  }
  return out;
}

export const srt: DocumentFormat = {
  id: 'srt',
  mediaType: 'application/x-subrip; charset=utf-8',
  extension: 'srt',
  sniff(bytes) {
    const lines = textHead(bytes, 1024).split(/\r?\n/).filter((l) => l.trim() !== '');
    return /^\s*\d+\s*$/.test(lines[0] ?? '') && SRT_TIMING.test(lines[1] ?? '');
  },
  async open(bytes, limits) {
    const file = decodeText(bytes, 'SRT');
    // A cue: its number, its timing line, then text. A block without a timing line is kept whole.
    return cues(file.text, false, (lines) => (SRT_TIMING.test(lines[1] ?? '') ? 1 : SRT_TIMING.test(lines[0] ?? '') ? 0 : -1), limits.maxUnits).document(file.encoding);
  },
};

export const vtt: DocumentFormat = {
  id: 'vtt',
  mediaType: 'text/vtt; charset=utf-8',
  extension: 'vtt',
  sniff: (bytes) => /^WEBVTT(?:[ \t]|\r?\n|$)/.test(textHead(bytes, 64)),
  async open(bytes, limits) {
    const file = decodeText(bytes, 'WebVTT');
    // A cue is a block with a timing line (its identifier may come first); the header and NOTE, STYLE and
    // REGION blocks have none and are kept.
    return cues(file.text, true, (lines) => {
      if (/^(WEBVTT|NOTE|STYLE|REGION)\b/.test(lines[0] ?? '')) return -1;
      return lines.findIndex((l) => TIMING.test(l));
    }, limits.maxUnits).document(file.encoding);
  },
};

export const isSubtitleName = (filename: string): boolean => ['srt', 'vtt'].includes(extensionOf(filename));
