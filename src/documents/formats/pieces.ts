// A text format's file as pieces in order: kept source text, and units whose translation is written in their
// place. Writing is concatenation, so everything that is not a unit comes back as it was.
import { tooManyUnits, type OpenedDocument, type TextUnit, type UnitNote } from './types.ts';
import { encodeText, type TextEncoding } from './text-file.ts';

type Notes = readonly (UnitNote | undefined)[] | undefined;

/** Kept text, a unit, or text that depends only on the target (a language attribute) and units' notes. */
export type Piece = string | { unit: number | undefined; render(translation: string, target: string, notes: Notes): string };

/** A unit to be written, named before it is: filled in by `unit()` (text around a unit may depend on its note). */
export interface UnitRef {
  unit?: number;
}

export class PieceWriter {
  readonly pieces: Piece[] = [];
  readonly units: TextUnit[] = [];

  /** `maxUnits`: refused (DocumentError) at the first unit past it, before the rest of the file is read. */
  constructor(private readonly maxUnits = Infinity) {}

  keep(text: string): void {
    if (text !== '') this.pieces.push(text);
  }

  /**
   * A unit with `html` as its fragment, written back by `render` from its translation (and its note, when the
   * document was translated with a memory). `ref` is filled with its number.
   */
  unit(html: string, render: (translation: string, target: string, note: UnitNote | undefined) => string, ref?: UnitRef): void {
    if (this.units.length >= this.maxUnits) throw tooManyUnits(this.maxUnits, this.maxUnits, true);
    const unit = this.units.length;
    if (ref) ref.unit = unit;
    this.pieces.push({ unit, render: (t, target, notes) => render(t, target, notes?.[unit]) });
    this.units.push({ html });
  }

  /** Text written from the target alone (no unit): a language tag. */
  unitless(render: (target: string) => string): void {
    this.pieces.push({ unit: undefined, render: (_t, target) => render(target) });
  }

  /** Text written from the notes of units written elsewhere (an XLIFF state, a PO flag); undefined notes without a memory. */
  noted(refs: readonly UnitRef[], render: (notes: (UnitNote | undefined)[] | undefined, target: string) => string): void {
    this.pieces.push({
      unit: undefined,
      render: (_t, target, notes) => render(notes && refs.map((r) => (r.unit === undefined ? undefined : notes[r.unit])), target),
    });
  }

  text(translations: readonly string[], target: string, notes?: Notes): string {
    if (translations.length !== this.units.length) {
      throw new Error(`expected ${this.units.length} translations, got ${translations.length}`);
    }
    return this.pieces.map((p) => (typeof p === 'string' ? p : p.render(p.unit === undefined ? '' : translations[p.unit]!, target, notes))).join('');
  }

  document(encoding: TextEncoding, finish: (text: string, target: string) => string = (t) => t): OpenedDocument {
    return {
      units: this.units,
      write: async (translations, target, notes) => encodeText(finish(this.text(translations, target, notes), target), encoding),
    };
  }
}
