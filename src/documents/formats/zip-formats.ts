// The zip-based formats: Office Open XML (Word, PowerPoint, Excel), OpenDocument (text, presentation,
// spreadsheet) and EPUB 2/3. Each is recognised from the archive's content, never from the file name.
import { docx } from './docx.ts';
import { epub } from './epub.ts';
import { odp, ods, odt } from './odf.ts';
import { pptx } from './pptx.ts';
import type { DocumentFormat } from './types.ts';
import { xlsx } from './xlsx.ts';

export const zipFormats: DocumentFormat[] = [docx, pptx, xlsx, odt, odp, ods, epub];
