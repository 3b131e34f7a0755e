// The formats a document may be, and which one a file is: recognised from its content (the name breaks ties only
// between text formats that look alike). Files we cannot translate (images, the old binary Office formats,
// encrypted files) are refused here with a message that says what they are and what is supported.
import { html, xhtml } from './html.ts';
import { markdown } from './markdown.ts';
import { pdf } from './pdf/index.ts';
import { plainText } from './plain-text.ts';
import { po } from './po.ts';
import { srt, vtt } from './subtitles.ts';
import { DocumentError, type DocumentFormat, type FormatId } from './types.ts';
import { xliff } from './xliff.ts';
import { zipFormats } from './zip-formats.ts';

export { DocumentError } from './types.ts';
export type { DocumentFormat, DocumentLimits, FormatId, OpenedDocument, TextUnit } from './types.ts';

/** In the order they are tried: containers first, then text formats from the most specific to plain text. */
export const FORMATS: readonly DocumentFormat[] = [pdf, ...zipFormats, xliff, xhtml, html, vtt, srt, po, markdown, plainText];

export const SUPPORTED_FORMATS =
  'PDF (with a text layer), DOCX, PPTX, XLSX, ODT, ODP, ODS, EPUB, HTML, XHTML, SRT, WebVTT, plain text, Markdown, XLIFF 1.2/2.x and gettext PO';

export function formatById(id: FormatId | string): DocumentFormat | undefined {
  return FORMATS.find((f) => f.id === id);
}

const startsWith = (bytes: Uint8Array, ...sig: number[]) => sig.every((b, i) => bytes[i] === b);
const ascii = (bytes: Uint8Array, at: number, s: string) => [...s].every((c, i) => bytes[at + i] === c.charCodeAt(0));

/** What a file we refuse is, by its magic bytes (undefined: not one of those). */
function refusedKind(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, 0x89, 0x50, 0x4e, 0x47)) return 'a PNG image';
  if (startsWith(bytes, 0xff, 0xd8, 0xff)) return 'a JPEG image';
  if (ascii(bytes, 0, 'GIF8')) return 'a GIF image';
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) return 'a WebP image';
  if (startsWith(bytes, 0x49, 0x49, 0x2a, 0x00) || startsWith(bytes, 0x4d, 0x4d, 0x00, 0x2a)) return 'a TIFF image';
  if (ascii(bytes, 4, 'ftyp')) return 'an image or video (ISO media)';
  if (ascii(bytes, 0, 'BM') && bytes.length > 26 && bytes[14]! >= 12 && bytes[15] === 0) return 'a BMP image';
  if (ascii(bytes, 0, '{\\rtf')) return 'an RTF file';
  return undefined;
}

const CFB = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** Whether a Compound File holds a stream named `name` (directory entries store names in UTF-16 LE). */
function cfbHasStream(bytes: Uint8Array, name: string): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(Buffer.from(name, 'utf16le'));
}

/**
 * The format of a file, or DocumentError: refused kinds with what is supported, encrypted files saying so,
 * a zip that is none of ours, anything else unreadable.
 */
export function detectFormat(bytes: Uint8Array, filename: string): DocumentFormat {
  if (bytes.length === 0) throw new DocumentError('The file is empty.');
  if (startsWith(bytes, ...CFB)) {
    // Office encrypts OOXML files into a Compound File with EncryptionInfo and EncryptedPackage streams.
    if (cfbHasStream(bytes, 'EncryptionInfo') || cfbHasStream(bytes, 'EncryptedPackage')) {
      throw new DocumentError('The file is encrypted (password-protected): remove the password in the program that made it and send it again.');
    }
    throw new DocumentError(
      `The file is in an old binary Office format (.doc, .xls or .ppt), which is not supported: save it as DOCX, XLSX or PPTX. Supported formats: ${SUPPORTED_FORMATS}.`,
    );
  }
  if (pdf.sniff(bytes, filename)) return pdf;
  const refused = refusedKind(bytes);
  if (refused) throw new DocumentError(`The file is ${refused}, which cannot be translated. Supported formats: ${SUPPORTED_FORMATS}.`);
  const found = FORMATS.find((f) => f.sniff(bytes, filename));
  if (found) return found;
  if (startsWith(bytes, 0x50, 0x4b)) {
    throw new DocumentError(`The file is a zip archive but none of the supported formats inside one. Supported formats: ${SUPPORTED_FORMATS}.`);
  }
  throw new DocumentError(`The file is not a supported format (not text in UTF-8, nor a known document). Supported formats: ${SUPPORTED_FORMATS}.`);
}
