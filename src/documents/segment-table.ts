// Strings per unit (a document's sentences, or their translations) as one string and two typed arrays. A document
// can have hundreds of thousands of sentences: passed between threads as an array of strings, each one would be
// cloned on its own on the receiving thread (the event loop); as a table it is one string and two buffers.
import type { UnitNote } from './formats/types.ts';

export interface SegmentTable {
  /** Every segment, one after the other. */
  text: string;
  /** Length of each segment (UTF-16 code units). */
  lengths: Uint32Array;
  /** Segments of each unit; -1: the unit has none to give (its translation is the unit as it was). */
  counts: Int32Array;
  /** Translations made with a memory: where each unit's came from (formats/types.ts), by unit. */
  notes?: (UnitNote | undefined)[];
  /** Characters of the sentences the memory gave (with `notes`). */
  memoryChars?: number;
}

export class SegmentTableBuilder {
  private readonly parts: string[] = [];
  private readonly lengths: number[] = [];
  private readonly counts: number[] = [];

  /** The next unit's segments (undefined: none to give). */
  add(segments: readonly string[] | undefined): void {
    if (segments === undefined) {
      this.counts.push(-1);
      return;
    }
    this.counts.push(segments.length);
    for (const s of segments) {
      this.parts.push(s);
      this.lengths.push(s.length);
    }
  }

  get units(): number {
    return this.counts.length;
  }

  build(): SegmentTable {
    return { text: this.parts.join(''), lengths: Uint32Array.from(this.lengths), counts: Int32Array.from(this.counts) };
  }
}

/** A table read unit by unit. */
export class SegmentTableReader {
  /** Index of each unit's first segment, and offset of each segment in the text. */
  private readonly firstSegment: Uint32Array;
  private readonly offsets: Float64Array;

  constructor(private readonly table: SegmentTable) {
    const units = table.counts.length;
    this.firstSegment = new Uint32Array(units + 1);
    for (let i = 0; i < units; i++) this.firstSegment[i + 1] = this.firstSegment[i]! + Math.max(0, table.counts[i]!);
    this.offsets = new Float64Array(table.lengths.length + 1);
    for (let i = 0; i < table.lengths.length; i++) this.offsets[i + 1] = this.offsets[i]! + table.lengths[i]!;
    if (this.firstSegment[units] !== table.lengths.length || this.offsets[table.lengths.length] !== table.text.length) {
      throw new Error('segment table: counts, lengths and text disagree');
    }
  }

  get units(): number {
    return this.table.counts.length;
  }

  /** Unit `i`'s segments (undefined: none to give). */
  segmentsOf(i: number): string[] | undefined {
    const n = this.table.counts[i]!;
    if (n < 0) return undefined;
    const first = this.firstSegment[i]!;
    const out = new Array<string>(n);
    for (let k = 0; k < n; k++) out[k] = this.table.text.slice(this.offsets[first + k]!, this.offsets[first + k + 1]!);
    return out;
  }

  /** The number of unit `i`'s segments (0 for none to give). */
  countOf(i: number): number {
    return Math.max(0, this.table.counts[i]!);
  }
}

/** The buffers a table's transfer moves (the sender no longer reads the table). */
export const tableTransfer = (t: SegmentTable): ArrayBuffer[] => [t.lengths.buffer as ArrayBuffer, t.counts.buffer as ArrayBuffer];
