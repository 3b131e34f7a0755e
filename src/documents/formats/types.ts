// The one shape every document format has: a filter that lifts the file's translatable text out as units
// (inline formatting as tags, the way format=html keeps them), and a merger that writes the translated units
// back into the untouched rest of the file. A new format is one such pair, never a new pipeline.

/** A refusal that names what is wrong with the file (the http layer answers it as a 400). */
export class DocumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DocumentError';
  }
}

/** The refusal of a document with more units than `max` (`count`: how many it has, or how many were counted before it stopped). */
export function tooManyUnits(count: number, max: number, counted = false): DocumentError {
  return new DocumentError(
    `The document has ${counted ? 'more than ' : ''}${count} pieces of text (paragraphs, cells, cues, strings), the maximum is ${max} (DRAGOMAN_MAX_DOCUMENT_UNITS). Split it into smaller files.`,
  );
}

/** Bounds on the work one file may cause, checked while it is opened (each a documented setting). */
export interface DocumentLimits {
  /** Most code points of text sent to translation. */
  maxCharacters: number;
  /** Most units (paragraphs, cells, cues, strings). */
  maxUnits: number;
  /** Most bytes of all zip entries together, uncompressed. */
  maxUncompressedBytes: number;
  /** Most entries in a zip container. */
  maxZipEntries: number;
  /** Most uncompressed/compressed ratio of one zip entry. */
  maxCompressionRatio: number;
  /** Most pages of a PDF (default 500). */
  maxPdfPages?: number;
  /** Heap of the worker thread that reads or writes one PDF, in MB (default 512). */
  pdfMemoryMb?: number;
  /** Longest one PDF may take to read or to write, in ms (default 120000). */
  pdfTimeoutMs?: number;
}

export type FormatId =
  | 'docx' | 'pptx' | 'xlsx'
  | 'odt' | 'odp' | 'ods'
  | 'epub'
  | 'html' | 'xhtml'
  | 'srt' | 'vtt'
  | 'txt' | 'markdown'
  | 'xliff' | 'po'
  | 'pdf';

/**
 * One translatable piece, in document order. `html` is an HTML fragment: text escaped as in HTML, inline
 * formatting (runs, bold, links, fields) as inline tags the format chose, so that the service's format=html
 * path translates the whole sentence and puts the tags back around the words they covered.
 */
export interface TextUnit {
  html: string;
}

/** A memory's fuzzy match of a unit's sentence (similarity 0-99, at or above the request's threshold). */
export interface UnitMatch {
  source: string;
  target: string;
  similarity: number;
}

/**
 * Where a unit's translation came from, for the formats that record it (XLIFF states and matches, PO's fuzzy flag):
 * every sentence from reviewed memory segments, every sentence from the memory with some learned ones, or at least
 * one sentence from the model. Given only for a document translated with a memory.
 */
export interface UnitNote {
  origin: 'reviewed' | 'learned' | 'machine';
  matches: UnitMatch[];
}

export interface OpenedDocument {
  units: TextUnit[];
  /**
   * The translated file: `translations[i]` is units[i] translated (same tag vocabulary), `target` the target's
   * BCP-47 tag to set where the format has language tags, `notes[i]` where units[i]'s translation came from
   * (only with a memory; formats without a place for it ignore it). Everything that is not a unit comes back
   * byte-identical.
   */
  write(translations: string[], target: string, notes?: readonly (UnitNote | undefined)[]): Promise<Uint8Array>;
}

export interface DocumentFormat {
  id: FormatId;
  /** Content-Type of the result. */
  mediaType: string;
  /** File extension of the result, without the dot. */
  extension: string;
  /** Recognises the format from the content (the name only breaks ties between text formats). */
  sniff(bytes: Uint8Array, filename: string): boolean;
  /** Parses the file; throws DocumentError for broken, encrypted or hostile files and for files over the limits. */
  open(bytes: Uint8Array, limits: DocumentLimits): Promise<OpenedDocument>;
}
