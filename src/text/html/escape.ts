// Re-escaping of translated text. The engine works on decoded characters; whatever it returns (`<script>`,
// quotes, ampersands) must come back as text, never as markup, so every special character is escaped.

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;' };

/**
 * How a no-break space is written back: `entity` (`&nbsp;`, what a serializer writes) or `literal` (the
 * character itself, for a document that writes it that way and never as an entity: its bytes come back).
 */
export type NbspStyle = 'entity' | 'literal';

const NBSP_ENTITY = /&(?:nbsp|NonBreakingSpace|#0*160|#[xX]0*[aA]0)\b/;

/** The document's own way of writing U+00A0: literal only if it has the character and never the entity. */
export function nbspStyleOf(html: string): NbspStyle {
  return html.includes('\u00a0') && !NBSP_ENTITY.test(html) ? 'literal' : 'entity';
}

/** Escape plain text for use as HTML text content (also what Google's format=html expects of plain text). */
export function escapeHtmlText(text: string, nbsp: NbspStyle = 'entity'): string {
  return text.replace(nbsp === 'entity' ? /[&<>\u00a0]/g : /[&<>]/g, (c) => TEXT_ESCAPES[c] ?? c);
}

/** Escape an attribute value for use between the given quote character. */
export function escapeHtmlAttribute(value: string, quote: '"' | "'", nbsp: NbspStyle = 'entity'): string {
  return value.replace(nbsp === 'entity' ? /[&<>\u00a0"']/g : /[&<>"']/g, (c) => {
    if (c === '"') return quote === '"' ? '&quot;' : c;
    if (c === "'") return quote === "'" ? '&#39;' : c;
    return TEXT_ESCAPES[c] ?? c;
  });
}
