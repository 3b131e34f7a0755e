// What a PDF's structure must show before its text is read: a cross-reference table where the trailer says it
// is, no encryption, and the named refusals for each. And what reading and writing walk in the same order: the
// outline (bookmarks), bounded against cycles and absurd sizes.
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { DocumentError } from '../types.ts';

export const ENCRYPTED =
  'The PDF is encrypted (it has a password or restrictions): remove the protection in the program that made it (save or print it to a new PDF) and send it again.';
export const BROKEN_XREF =
  "The PDF's cross-reference table is broken (the file is damaged or was cut short): open it in a PDF viewer, save or print it to a new PDF and send it again.";
export const NO_TEXT_LAYER =
  'The PDF has no text layer: its pages are images (a scan or a photo), so there is no text to translate. Run it through OCR first (for example in the scanner\'s software) and send the PDF with text.';

const latin1 = (bytes: Uint8Array, from: number, to: number) => Buffer.from(bytes.buffer, bytes.byteOffset + from, Math.max(0, to - from)).toString('latin1');

/**
 * The trailer's `startxref` must point at a cross-reference table ("xref") or stream ("N G obj"); a file whose
 * pointer leads elsewhere (or that has none) is refused as broken rather than guessed at.
 */
export function checkCrossReference(bytes: Uint8Array): void {
  const tail = latin1(bytes, Math.max(0, bytes.length - 2048), bytes.length);
  const m = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail) ?? /startxref\s+(\d+)(?![\s\S]*startxref)/.exec(tail);
  if (!m) throw new DocumentError(BROKEN_XREF);
  const at = Number(m[1]);
  if (!(at > 0 && at < bytes.length)) throw new DocumentError(BROKEN_XREF);
  const head = latin1(bytes, at, Math.min(bytes.length, at + 64));
  if (!/^\s*(xref\b|\d+\s+\d+\s+obj\b)/.test(head)) throw new DocumentError(BROKEN_XREF);
}

/** The file parsed by pdf-lib, refused by name when encrypted. */
export async function loadStructure(bytes: Uint8Array): Promise<PDFDocument> {
  const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  if (doc.isEncrypted) throw new DocumentError(ENCRYPTED);
  return doc;
}

/** Most outline entries read (each is a unit); a longer outline keeps the rest untranslated. */
const MAX_OUTLINE = 10_000;

/** The outline's entries in document order (depth first), each once, however the links loop. */
export function outlineItems(doc: PDFDocument): PDFDict[] {
  const root = doc.catalog.lookupMaybe(PDFName.of('Outlines'), PDFDict);
  const out: PDFDict[] = [];
  const seen = new Set<PDFDict>();
  const first = (d: PDFDict | undefined) => d?.lookupMaybe(PDFName.of('First'), PDFDict);
  const stack: (PDFDict | undefined)[] = [first(root)];
  while (stack.length > 0 && out.length < MAX_OUTLINE) {
    let item = stack.pop();
    // Siblings in order; each one's children before the next sibling.
    if (!item || seen.has(item)) continue;
    seen.add(item);
    out.push(item);
    const next = item.lookupMaybe(PDFName.of('Next'), PDFDict);
    stack.push(next);
    stack.push(first(item));
    item = undefined;
  }
  return out;
}

/** An outline entry's title as text (undefined: none or not a string). */
export function titleOf(item: PDFDict): string | undefined {
  const t = item.lookup(PDFName.of('Title'));
  return t instanceof PDFString || t instanceof PDFHexString ? t.decodeText() : undefined;
}
