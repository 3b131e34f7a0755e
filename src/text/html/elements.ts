// Which elements cut sentences, which are never translated, which attributes carry prose.
// Anything not listed is inline: unknown and custom elements (`<my-tag>`) flow inside a sentence.

/** Elements whose start and end separate segments (a sentence never runs across them). */
export const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'address', 'article', 'aside', 'base', 'blockquote', 'body', 'br', 'caption', 'center', 'col', 'colgroup',
  'dd', 'details', 'dialog', 'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form',
  'frame', 'frameset', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'head', 'header', 'hgroup', 'hr', 'html', 'legend',
  'li', 'link', 'listing', 'main', 'menu', 'meta', 'nav', 'ol', 'optgroup', 'option', 'p', 'section', 'select',
  'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'title', 'tr', 'ul', 'video', 'audio', 'object',
  'picture', 'canvas', 'datalist',
]);

/**
 * Elements whose content is never translated and comes back byte-identical: code and preformatted text,
 * scripts and styles, form values, raw-text elements (whose content is not HTML-escaped at all), and
 * embedded vocabularies (SVG, MathML). `template` content is inert markup: left alone as well.
 */
export const SKIPPED_ELEMENTS: ReadonlySet<string> = new Set([
  'script', 'style', 'code', 'pre', 'kbd', 'samp', 'var', 'textarea', 'noscript', 'svg', 'math', 'template',
  'xmp', 'iframe', 'noembed', 'noframes', 'plaintext',
]);

/** Skipped elements that still end a sentence (the others sit inside one as an opaque token). */
export const SKIPPED_BLOCKS: ReadonlySet<string> = new Set(['pre', 'plaintext', 'xmp', 'listing']);

/** Attribute values shown to people: translated as segments of their own. */
export const TRANSLATED_ATTRIBUTES: readonly string[] = ['title', 'alt', 'placeholder', 'aria-label'];

interface AttributeLike {
  name: string;
  value: string;
}

/** `translate="no"` (HTML's own switch) or the `notranslate` class (Google's convention). */
export function isMarkedNoTranslate(attrs: readonly AttributeLike[]): boolean {
  for (const attr of attrs) {
    if (attr.name === 'translate' && attr.value.trim().toLowerCase() === 'no') return true;
    if (attr.name === 'class' && attr.value.split(/[ \t\n\f\r]+/).some((c) => c.toLowerCase() === 'notranslate')) return true;
  }
  return false;
}
