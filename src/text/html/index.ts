// format=html: translate the text inside markup, keep every tag, never open an injection hole.
// planHtml cuts a string of HTML into sentence segments (one per sentence even across inline tags, plus
// translatable attribute values) and rebuilds the markup from their translations by splicing escaped
// text into the original source, so everything else comes back byte for byte.
import type { TranslationPlan } from '../types.ts';
import { collectUnits } from './plan.ts';
import { splice, type Replacement } from './splice.ts';

export { escapeHtmlAttribute, escapeHtmlText } from './escape.ts';
export { isHtmlDocument } from './plan.ts';

export function planHtml(html: string): TranslationPlan {
  const units = collectUnits(html);
  const segments = units.flatMap((u) => u.segments);
  return {
    segments,
    assemble(translations) {
      if (translations.length !== segments.length) {
        throw new Error(`html: expected ${segments.length} translations, got ${translations.length}`);
      }
      const replacements: Replacement[] = [];
      let k = 0;
      for (const unit of units) {
        replacements.push(...unit.replacements(translations.slice(k, k + unit.segments.length)));
        k += unit.segments.length;
      }
      return splice(html, replacements);
    },
  };
}
