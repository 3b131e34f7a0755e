// The bytes of a PDF's content streams, inflated within a limit (a compression bomb is refused by name, not
// inflated), and a form's matrix: what reading (fonts of the text shown) and writing (text cut out) both walk.
import { inflateSync } from 'node:zlib';
import { decodePDFRawStream, PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream, PDFStream, type PDFPage } from 'pdf-lib';
import { DocumentError } from '../types.ts';
import { IDENTITY, type Matrix } from './content.ts';

export interface StreamLimits {
  /** Most bytes one content stream may inflate to. */
  maxStreamBytes: number;
}

export function streamBytes(stream: PDFStream, limits: StreamLimits): Uint8Array {
  if (!(stream instanceof PDFRawStream)) return stream.getContents();
  const filter = stream.dict.lookup(PDFName.of('Filter'));
  const only = filter instanceof PDFArray && filter.size() === 1 ? filter.lookup(0) : filter;
  if (only === PDFName.of('FlateDecode') && !stream.dict.has(PDFName.of('DecodeParms'))) {
    try {
      return new Uint8Array(inflateSync(stream.contents, { maxOutputLength: limits.maxStreamBytes }));
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new DocumentError(`A content stream of the PDF inflates to more than ${limits.maxStreamBytes} bytes (DRAGOMAN_MAX_DOCUMENT_UNCOMPRESSED_BYTES).`);
      }
      throw new DocumentError('A content stream of the PDF is damaged (it does not inflate).');
    }
  }
  const out = decodePDFRawStream(stream).decode();
  if (out.length > limits.maxStreamBytes) throw new DocumentError(`A content stream of the PDF inflates to more than ${limits.maxStreamBytes} bytes (DRAGOMAN_MAX_DOCUMENT_UNCOMPRESSED_BYTES).`);
  return out;
}

/** Every content stream of the page, joined as one (a token may run across two streams). */
export function pageContent(page: PDFPage, limits: StreamLimits): Uint8Array {
  const contents = page.node.Contents();
  const streams: PDFStream[] = [];
  if (contents instanceof PDFStream) streams.push(contents);
  else if (contents instanceof PDFArray) {
    for (let i = 0; i < contents.size(); i++) {
      const s = contents.lookup(i);
      if (s instanceof PDFStream) streams.push(s);
    }
  }
  return new Uint8Array(Buffer.concat(streams.flatMap((s) => [Buffer.from(streamBytes(s, limits)), Buffer.from('\n')])));
}

export function matrixOf(dict: PDFDict): Matrix {
  const m = dict.lookup(PDFName.of('Matrix'));
  if (!(m instanceof PDFArray) || m.size() !== 6) return IDENTITY;
  const v = m.asArray().map((x) => (x instanceof PDFNumber ? x.asNumber() : Number.NaN));
  return v.every(Number.isFinite) ? (v as Matrix) : IDENTITY;
}
