// Spans of plain text that must come back exactly as sent: placeholders of the common template and format-string
// syntaxes, URLs and e-mail addresses. The service asks the engine to keep each one verbatim (a constraint of
// decoding, not a replacement after it).

export interface KeptSpan {
  start: number;
  end: number;
  kind: 'placeholder' | 'url' | 'email';
}

const PATTERNS: { kind: KeptSpan['kind']; re: RegExp }[] = [
  // {{name}}, ${x}, {0} / {name}, printf %s %d %1$s %.2f, Python %(name)s.
  { kind: 'placeholder', re: /\{\{[^{}\n]{1,100}\}\}|\$\{[^{}\n]{1,100}\}|\{[\p{L}\p{N}_.]{1,100}\}|%(?:\([\p{L}\p{N}_]{1,100}\)|\d+\$)?[-+#0]*\d*(?:\.\d+)?[sdifuxXoeEgGc]\b/gu },
  { kind: 'url', re: /\b(?:https?|ftp):\/\/[^\s<>"'`]+|\bwww\.[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+[^\s<>"'`]*/gu },
  { kind: 'email', re: /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu },
];

/** Punctuation that ends a sentence rather than a URL ("see https://example.com."). */
const TRAILING = /[.,;:!?)\]}'"]+$/;

/**
 * The words html/placeholders.ts shows the engine for untranslated inline elements (`X`, `X1`, `X2`...): kept, the
 * element goes exactly where the translation has its word instead of where the positional heuristic guesses.
 */
const HTML_PLACEHOLDER = /(?<![\p{L}\p{N}])X\d*(?![\p{L}\p{N}])/gu;

/**
 * The spans to keep in `text`, left to right, never overlapping (the earlier, then the longer, wins). `html`: the
 * text is a segment of format=html, whose placeholder words are kept too.
 */
export function keptSpans(text: string, html = false): KeptSpan[] {
  const found: KeptSpan[] = [];
  for (const { kind, re } of html ? [...PATTERNS, { kind: 'placeholder' as const, re: HTML_PLACEHOLDER }] : PATTERNS) {
    for (const m of text.matchAll(re)) {
      let end = m.index + m[0].length;
      if (kind === 'url') {
        const url = m[0];
        // A closing bracket belongs to the URL when it opens one too (Wikipedia-style links).
        const trail = url.match(TRAILING)?.[0] ?? '';
        let cut = trail.length;
        if (trail.startsWith(')') && url.includes('(')) cut = trail.length - 1;
        end -= cut;
      }
      found.push({ start: m.index, end, kind });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: KeptSpan[] = [];
  for (const s of found) if (s.end > s.start && (out.length === 0 || s.start >= out[out.length - 1]!.end)) out.push(s);
  return out;
}
