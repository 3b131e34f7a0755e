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
 * embedded vocabularies (SVG, MathML). `template` content is inert markup: left alone as well. Their own
 * `title`/`alt`/`placeholder`/`aria-label` are still translated (a textarea's placeholder is prose); the
 * attributes of elements inside them are content.
 */
export const SKIPPED_ELEMENTS: ReadonlySet<string> = new Set([
  'script', 'style', 'code', 'pre', 'kbd', 'samp', 'var', 'textarea', 'noscript', 'svg', 'math', 'template',
  'xmp', 'iframe', 'noembed', 'noframes', 'plaintext',
]);

/**
 * Skipped elements a reader reads as words of the sentence around them (`Run <code>npm test</code> now.`):
 * inside a sentence, the engine sees a placeholder word there. The others (script, textarea, svg, iframe...)
 * are left out of the sentence like an image. Any other element under translate="no" reads as words.
 */
export const SKIPPED_READ_AS_WORDS: ReadonlySet<string> = new Set(['code', 'kbd', 'samp', 'var', 'math']);

/** Skipped elements that still end a sentence (the others sit inside one as an opaque token). */
export const SKIPPED_BLOCKS: ReadonlySet<string> = new Set(['pre', 'plaintext', 'xmp', 'listing']);

/** Attribute values shown to people: translated as segments of their own. */
export const TRANSLATED_ATTRIBUTES: readonly string[] = ['title', 'alt', 'placeholder', 'aria-label'];

interface AttributeLike {
  name: string;
  value: string;
}

/**
 * An element's own translation switch, or undefined to inherit its parent's (HTML's `translate` attribute is
 * inherited, and `translate="yes"` inside `translate="no"` switches translation back on). `translate="no"` or
 * the `notranslate` class (Google's convention) → false; `translate="yes"` or `translate=""` → true; an invalid
 * value → inherit. On one element, a "no" either way wins over its own "yes".
 */
export function ownTranslateMode(attrs: readonly AttributeLike[]): boolean | undefined {
  let mode: boolean | undefined;
  for (const attr of attrs) {
    if (attr.name === 'class' && attr.value.split(/[ \t\n\f\r]+/).some((c) => c.toLowerCase() === 'notranslate')) return false;
    if (attr.name !== 'translate') continue;
    const value = attr.value.trim().toLowerCase();
    if (value === 'no') return false;
    if (value === 'yes' || value === '') mode = true;
  }
  return mode;
}
