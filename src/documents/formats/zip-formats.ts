// The zip-based formats (OOXML, OpenDocument, EPUB), each a DocumentFormat of its own.
import type { DocumentFormat } from './types.ts';

export const zipFormats: DocumentFormat[] = [];
