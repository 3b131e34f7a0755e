// format=html: translate the text inside markup, keep every tag, never open an injection hole.
// planHtml cuts a string of HTML into sentence segments (one per sentence even across inline tags, plus
// translatable attribute values) and rebuilds the markup from their translations by splicing escaped
// text into the original source, so everything else comes back byte for byte.
import type { TranslationPlan } from '../types.ts';
import { collectUnits, parseHtml, type Unit } from './plan.ts';
import { splice, type Replacement } from './splice.ts';
import { structureOf } from './structure.ts';

export { escapeHtmlAttribute, escapeHtmlText } from './escape.ts';
export { isHtmlDocument } from './plan.ts';

export interface HtmlOptions {
  /** Elements whose content is kept as it is, like translate="no" (DeepL's ignore_tags), lower-case names. */
  ignoreTags?: readonly string[];
}

export function planHtml(html: string, options: HtmlOptions = {}): TranslationPlan {
  const root = parseHtml(html);
  const units = collectUnits(html, root, new Set(options.ignoreTags ?? []));
  const segments = units.flatMap((u) => u.segments);
  let structure: string | undefined;
  return {
    segments,
    assemble(translations) {
      if (translations.length !== segments.length) {
        throw new Error(`html: expected ${segments.length} translations, got ${translations.length}`);
      }
      if (segments.length === 0) return html;
      const output = splice(html, replacements(units, translations, false));
      // Malformed input (misnested or unclosed formatting tags) is repaired by the parser depending on where
      // text sits; if moving words changed the repaired tree, keep every text node where it was instead. Input
      // without elements has nothing to repair (the translations spliced in are escaped text): no second parse.
      structure ??= structureOf(root);
      if (structure === '' || structureOf(parseHtml(output, false)) === structure) return output;
      return splice(html, replacements(units, translations, true));
    },
  };
}

function replacements(units: readonly Unit[], translations: readonly string[], keepTextNodes: boolean): Replacement[] {
  const out: Replacement[] = [];
  let k = 0;
  for (const unit of units) {
    out.push(...unit.replacements(translations.slice(k, k + unit.segments.length), keepTextNodes));
    k += unit.segments.length;
  }
  return out;
}
