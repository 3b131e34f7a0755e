// A translation memory: a key's approved translations of whole segments (sentences), for one source language and
// one or more target languages. Languages are the catalog's public codes (src/languages).

export interface Memory {
  id: string;
  /** The row number its segments are stored under (never shown to clients). */
  num: number;
  /** The API key that made it: only that key sees, uses, changes or deletes it. */
  owner: string;
  name: string;
  source: string;
  /** Target languages it holds segments for, sorted. */
  targets: string[];
  segmentCount: number;
  /** Milliseconds since the epoch. */
  createdAt: number;
  updatedAt: number;
}

/** A segment as an import, the API or learning hands it to the store. */
export interface NewSegment {
  source: string;
  target: string;
  targetLang: string;
  /** Imported or entered by a person (true), or learned from this server's own translations (false). */
  reviewed: boolean;
  /** The TMX inline markup of source and target (`<seg>` content) when the segment had inline codes. */
  sourceMarkup?: string;
  targetMarkup?: string;
}

/** One source segment's translation into one target language, as stored. */
export interface Segment extends NewSegment {
  id: number;
  createdAt: number;
  updatedAt: number;
}

/** A stored segment found for a sentence: similarity 100 is an exact match (same text after whitespace normalisation). */
export interface MemoryMatch {
  source: string;
  target: string;
  similarity: number;
  reviewed: boolean;
}

export interface MemoryLimits {
  /** Most memories per key. */
  perKey: number;
  /** Most segments per memory. */
  maxSegments: number;
  /** Most characters of one segment's source or target. */
  maxSegmentChars: number;
  /** Most bytes of an imported file. */
  maxFileBytes: number;
}

/** Segments of a memory listed a page at a time. */
export interface SegmentPage {
  segments: Segment[];
  /** Segment count of the whole memory (not reduced by a filter). */
  total: number;
  /** Give back as `after` for the next page; absent on the last page. */
  next?: number;
}

export interface SegmentFilter {
  /** Substring of source or target. */
  text?: string;
  caseSensitive?: boolean;
  targetLang?: string;
  reviewed?: boolean;
  after?: number;
  limit: number;
}
