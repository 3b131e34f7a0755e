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

/** Bounds on the work one file may cause, checked while it is opened (each a documented setting). */
export interface DocumentLimits {
  /** Most code points of text sent to translation. */
  maxCharacters: number;
  /** Most bytes of all zip entries together, uncompressed. */
  maxUncompressedBytes: number;
  /** Most entries in a zip container. */
  maxZipEntries: number;
  /** Most uncompressed/compressed ratio of one zip entry. */
  maxCompressionRatio: number;
}

export type FormatId =
  | 'docx' | 'pptx' | 'xlsx'
  | 'odt' | 'odp' | 'ods'
  | 'epub'
  | 'html' | 'xhtml'
  | 'srt' | 'vtt'
  | 'txt' | 'markdown'
  | 'xliff' | 'po';

/**
 * One translatable piece, in document order. `html` is an HTML fragment: text escaped as in HTML, inline
 * formatting (runs, bold, links, fields) as inline tags the format chose, so that the service's format=html
 * path translates the whole sentence and puts the tags back around the words they covered.
 */
export interface TextUnit {
  html: string;
}

/** What a translation memory did for a unit, for the formats that record a segment's status and matches. */
export interface UnitNote {
  /** 'memory': every sentence of the unit is a memory's stored translation; 'machine': some were translated. */
  origin: 'memory' | 'machine';
  /** The memory's matches of the unit's sentences (similarity 0–100; 100 for the exact ones used). */
  matches: { source: string; target: string; similarity: number }[];
}

export interface OpenedDocument {
  units: TextUnit[];
  /**
   * The translated file: `translations[i]` is units[i] translated (same tag vocabulary), `target` the target's
   * BCP-47 tag to set where the format has language tags. Everything that is not a unit comes back byte-identical.
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
