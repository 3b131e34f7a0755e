// One run = the text of a block with its inline tags: slots of text separated by boundaries (tags and
// opaque tokens). A run is cut into sentences; each sentence is one segment even when tags cut through
// it, and the translations are poured back into the same number of slots.
import { placeBoundaries, type BoundaryKind, type Piece, type SentenceBoundary } from './align.ts';
import { normalizeSpace, splitSentences } from './sentences.ts';

export interface RunBoundary {
  kind: BoundaryKind;
  /** Index of the matching open/close in the run, -1 for opaque tokens or an unmatched tag. */
  partner: number;
}

export interface Run {
  /** Decoded text between boundaries: `slots.length === boundaries.length + 1`. */
  slots: string[];
  boundaries: RunBoundary[];
}

export interface RunPlan {
  segments: string[];
  /** New slot texts (same count as the run's slots) from one translation per segment. */
  assemble(translations: readonly string[]): string[];
}

export function planRun(run: Run): RunPlan {
  const text = run.slots.join('');
  const positions: number[] = [];
  let offset = 0;
  for (let i = 0; i < run.boundaries.length; i++) {
    offset += run.slots[i]!.length;
    positions.push(offset);
  }
  const sentences = splitSentences(text);
  const segments = sentences.map((s) => normalizeSpace(text.slice(s.start, s.end)));

  return {
    segments,
    assemble(translations) {
      const pieces: Piece[] = [];
      let cursor = 0;
      let b = 0;
      const copyUntil = (end: number): void => {
        // Original text and tags up to `end` (tags at `end` included), as they were.
        while (b < positions.length && positions[b]! <= end) {
          if (positions[b]! > cursor) pieces.push({ text: text.slice(cursor, positions[b]) });
          cursor = Math.max(cursor, positions[b]!);
          pieces.push({ boundary: b++ });
        }
        if (end > cursor) pieces.push({ text: text.slice(cursor, end) });
        cursor = Math.max(cursor, end);
      };
      sentences.forEach((sentence, k) => {
        copyUntil(sentence.start);
        const inside: number[] = [];
        while (b + inside.length < positions.length && positions[b + inside.length]! < sentence.end) inside.push(b + inside.length);
        const translation = (translations[k] ?? segments[k]!).trim();
        if (translation === segments[k]) {
          copyUntil(sentence.end); // unchanged sentence: original spacing and tag positions
          return;
        }
        const local: SentenceBoundary[] = inside.map((index) => {
          const partner = run.boundaries[index]!.partner;
          return {
            pos: positions[index]! - sentence.start,
            kind: run.boundaries[index]!.kind,
            partner: partner >= inside[0]! && partner <= inside[inside.length - 1]! ? partner - inside[0]! : -1,
          };
        });
        for (const piece of placeBoundaries(text.slice(sentence.start, sentence.end), local, translation)) {
          pieces.push('text' in piece ? piece : { boundary: inside[piece.boundary]! });
        }
        b += inside.length;
        cursor = sentence.end;
      });
      copyUntil(text.length);
      return toSlots(pieces, run.boundaries.length);
    },
  };
}

function toSlots(pieces: Piece[], boundaryCount: number): string[] {
  const slots: string[] = [''];
  let expected = 0;
  for (const piece of pieces) {
    if ('text' in piece) slots[slots.length - 1] += piece.text;
    else {
      // Order is an invariant of placeBoundaries; a violation would scramble markup, so fail loudly.
      if (piece.boundary !== expected++) throw new Error('html: inline tags out of order while assembling');
      slots.push('');
    }
  }
  if (slots.length !== boundaryCount + 1) throw new Error('html: inline tags lost while assembling');
  return slots;
}
