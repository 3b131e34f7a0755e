// One YAML scalar of Markdown front matter: translated when it is prose (plain or quoted), written back quoted
// the way it was, or double-quoted when the translation would otherwise read as other YAML.
import { decodeText, escapeText } from './fragment.ts';

export type Quote = '"' | "'" | '';

/** The value as a unit fragment, or undefined when it is not prose (numbers, dates, URLs, lists, blocks...). */
export function translatableScalar(value: string): { html: string; quote: Quote } | undefined {
  let quote: Quote = '';
  let inner = value;
  if (/^"(?:[^"\\]|\\.)*"$/.test(value)) {
    quote = '"';
    inner = value.slice(1, -1);
    if (inner.includes('\\')) return undefined; // escapes: leave as written
  } else if (/^'(?:[^']|'')*'$/.test(value)) {
    quote = "'";
    inner = value.slice(1, -1).replace(/''/g, "'");
  } else if (/^[[{|>&*!%@`#]/.test(value) || /\s#/.test(value)) {
    return undefined;
  }
  if (!/\p{L}/u.test(inner) || !/\s/.test(inner.trim())) return undefined; // one word: a name, a slug, a flag
  if (/^(?:[a-z]+:\/\/|\d{4}-\d\d-\d\d)/i.test(inner)) return undefined;
  return { html: escapeText(inner), quote };
}

export function frontMatterValue(translation: string, quote: Quote): string {
  const text = decodeText(translation.replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
  if (quote === "'") return `'${text.replace(/'/g, "''")}'`;
  if (quote === '"' || /^[[{|>&*!%@`#'"-]|:\s|\s#|:$/.test(text)) return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  return text;
}
