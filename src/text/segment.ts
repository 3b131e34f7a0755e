// Plain text -> sentences for the engine, and back. Lines and paragraphs are cut at line breaks, sentences by
// Intl.Segmenter; every piece of whitespace (indentation, blank lines, spaces between sentences, \r\n) is kept
// verbatim and only the sentence bodies are replaced, so the output has exactly the input's layout.
import type { TranslationPlan } from './types.ts';

type Piece = { kind: 'keep'; text: string } | { kind: 'segment'; index: number };

// Line breaks, tabs (columns: `Name\tAge\tCity`), and the controls and BOMs that glue texts together (NUL, a
// U+FEFF from a concatenated file, a form feed, NEL): each is a hard boundary, kept verbatim between the pieces.
const LINE_BREAK = /(\r\n|\r|\n|\u2028|\u2029|[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\ufeff]+)/;
// Invisible characters at a sentence's edges (format characters such as U+200B, a bidi mark, a soft hyphen) are
// layout, like whitespace: a model drops them, so they stay outside what it is given. Inside a sentence they stay
// with it (Thai writes U+200B between words).
const EDGE_SPACE = /^([\s\p{Cc}\p{Cf}]*)([\s\S]*?)([\s\p{Cc}\p{Cf}]*)$/u;

// ICU's root rules end a sentence after "Mr." or an initial; these common abbreviations do not (nor the last
// letter of a dotted acronym: `"E.S.E. Electronics"`).
const ABBREVIATION_END = /(?:^|[\s("'“‘«.])(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|vs|etc|e\.g|i\.e|z\.B|bzw|usw|Nr|Hr|Fr|Mme|\p{Lu})\.\s*$/u;

// ICU ends a sentence at "?", "!" or "." even with no space after it, which cuts URLs and addresses
// (`https://x.com/search?q=1`, `a.b?c=1`, `hi!me@x.org`); an alphabet's sentence ends with a space after it, so a
// break right after ASCII punctuation with no space is not one. (CJK's 。！？ end sentences without spaces.)
const UNSPACED_END = /[.?!]$/;
// Nor does a sentence start with a small letter: ICU ends one after `"Stop!"` in `He said "Stop!" and left.`
const LOWERCASE_START = /^\p{Ll}/u;

function sentencesOf(segmenter: Intl.Segmenter, line: string): string[] {
  const out: string[] = [];
  for (const { segment } of segmenter.segment(line)) {
    const last = out[out.length - 1];
    const joined = last !== undefined && (ABBREVIATION_END.test(last) || UNSPACED_END.test(last) || LOWERCASE_START.test(segment));
    if (joined) out[out.length - 1] += segment;
    else out.push(segment);
  }
  return out;
}

/** `locale` only tunes sentence rules (e.g. the source language); undefined uses the root rules. */
export function planText(text: string, locale?: string): TranslationPlan {
  const segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
  const pieces: Piece[] = [];
  const segments: string[] = [];
  const keep = (s: string) => {
    if (!s) return;
    const last = pieces[pieces.length - 1];
    if (last?.kind === 'keep') last.text += s;
    else pieces.push({ kind: 'keep', text: s });
  };

  // split() with a capturing group puts the separators themselves at the odd indices.
  for (const [i, part] of text.split(LINE_BREAK).entries()) {
    if (i % 2 === 1) {
      keep(part);
      continue;
    }
    for (const segment of sentencesOf(segmenter, part)) {
      const [, lead = '', body = '', trail = ''] = EDGE_SPACE.exec(segment) ?? [];
      keep(lead);
      if (body) {
        pieces.push({ kind: 'segment', index: segments.length });
        segments.push(body);
      }
      keep(trail);
    }
  }

  return {
    segments,
    assemble(translations: string[]): string {
      if (translations.length !== segments.length) {
        throw new Error(`planText: ${segments.length} segments but ${translations.length} translations`);
      }
      return pieces.map((p) => (p.kind === 'keep' ? p.text : translations[p.index]!)).join('');
    },
  };
}
