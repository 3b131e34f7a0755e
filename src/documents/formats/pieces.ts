// A text format's file as pieces in order: kept source text, and units whose translation is written in their
// place. Writing is concatenation, so everything that is not a unit comes back as it was.
import type { OpenedDocument, TextUnit, UnitNote } from './types.ts';
import { encodeText, type TextEncoding } from './text-file.ts';

/** Kept text, a unit, or text that depends only on the target (a language attribute). */
export type Piece = string | { unit: number | undefined; render(translation: string, target: string, note: UnitNote | undefined): string };

export class PieceWriter {
  readonly pieces: Piece[] = [];
  readonly units: TextUnit[] = [];

  keep(text: string): void {
    if (text !== '') this.pieces.push(text);
  }

  /** A unit with `html` as its fragment, written back by `render` from its translation. */
  unit(html: string, render: (translation: string, target: string, note: UnitNote | undefined) => string): void {
    this.pieces.push({ unit: this.units.length, render });
    this.units.push({ html });
  }

  /** Text written from the target alone (no unit): a language tag. */
  unitless(render: (target: string) => string): void {
    this.pieces.push({ unit: undefined, render: (_t, target) => render(target) });
  }

  /**
   * Text written from what a translation memory did for a unit (its status, its matches): `unit` is the index of
   * the last unit added ('previous') or of the next one ('next'). Nothing is written for a unit without a note.
   */
  note(which: 'previous' | 'next', render: (note: UnitNote) => string, otherwise = ''): void {
    const unit = which === 'next' ? this.units.length : this.units.length - 1;
    this.pieces.push({ unit, render: (_t, _target, note) => (note ? render(note) : otherwise) });
  }

  text(translations: readonly string[], target: string, notes?: readonly (UnitNote | undefined)[]): string {
    if (translations.length !== this.units.length) {
      throw new Error(`expected ${this.units.length} translations, got ${translations.length}`);
    }
    return this.pieces.map((p) => (typeof p === 'string' ? p : p.render(p.unit === undefined ? '' : translations[p.unit]!, target, p.unit === undefined ? undefined : notes?.[p.unit]))).join('');
  }

  document(encoding: TextEncoding, finish: (text: string, target: string) => string = (t) => t): OpenedDocument {
    return {
      units: this.units,
      write: async (translations, target, notes) => encodeText(finish(this.text(translations, target, notes), target), encoding),
    };
  }
}
