// A text format's file as pieces in order: kept source text, and units whose translation is written in their
// place. Writing is concatenation, so everything that is not a unit comes back as it was.
import { tooManyUnits, type OpenedDocument, type TextUnit } from './types.ts';
import { encodeText, type TextEncoding } from './text-file.ts';

/** Kept text, a unit, or text that depends only on the target (a language attribute). */
export type Piece = string | { unit: number | undefined; render(translation: string, target: string): string };

export class PieceWriter {
  readonly pieces: Piece[] = [];
  readonly units: TextUnit[] = [];

  /** `maxUnits`: refused (DocumentError) at the first unit past it, before the rest of the file is read. */
  constructor(private readonly maxUnits = Infinity) {}

  keep(text: string): void {
    if (text !== '') this.pieces.push(text);
  }

  /** A unit with `html` as its fragment, written back by `render` from its translation. */
  unit(html: string, render: (translation: string, target: string) => string): void {
    if (this.units.length >= this.maxUnits) throw tooManyUnits(this.maxUnits, this.maxUnits, true);
    this.pieces.push({ unit: this.units.length, render });
    this.units.push({ html });
  }

  /** Text written from the target alone (no unit): a language tag. */
  unitless(render: (target: string) => string): void {
    this.pieces.push({ unit: undefined, render: (_t, target) => render(target) });
  }

  text(translations: readonly string[], target: string): string {
    if (translations.length !== this.units.length) {
      throw new Error(`expected ${this.units.length} translations, got ${translations.length}`);
    }
    return this.pieces.map((p) => (typeof p === 'string' ? p : p.render(p.unit === undefined ? '' : translations[p.unit]!, target))).join('');
  }

  document(encoding: TextEncoding, finish: (text: string, target: string) => string = (t) => t): OpenedDocument {
    return {
      units: this.units,
      write: async (translations, target) => encodeText(finish(this.text(translations, target), target), encoding),
    };
  }
}
