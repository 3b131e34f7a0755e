// Re-escaping of translated text. The engine works on decoded characters; whatever it returns (`<script>`,
// quotes, ampersands) must come back as text, never as markup, so every special character is escaped.

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;' };

/** Escape plain text for use as HTML text content (also what Google's format=html expects of plain text). */
export function escapeHtmlText(text: string): string {
  return text.replace(/[&<>\u00a0]/g, (c) => TEXT_ESCAPES[c] ?? c);
}

/** Escape an attribute value for use between the given quote character. */
export function escapeHtmlAttribute(value: string, quote: '"' | "'"): string {
  return value.replace(/[&<>\u00a0"']/g, (c) => {
    if (c === '"') return quote === '"' ? '&quot;' : c;
    if (c === "'") return quote === "'" ? '&#39;' : c;
    return TEXT_ESCAPES[c] ?? c;
  });
}
