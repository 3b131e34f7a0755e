// PDF as a document format: recognised by its %PDF- header (within the first kilobyte, as readers accept it),
// read and written on a worker thread of its own (run.ts), units the title, the outline entries and the text
// blocks (read.ts), the translated file written by write.ts. Reference: docs/documents-formats.md.
import type { DocumentFormat } from '../types.ts';
import { readOnWorker, writeOnWorker } from './run.ts';

const HEADER = Buffer.from('%PDF-', 'latin1');

export const pdf: DocumentFormat = {
  id: 'pdf',
  mediaType: 'application/pdf',
  extension: 'pdf',
  sniff: (bytes) => {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const at = buf.subarray(0, 1024).indexOf(HEADER);
    // Bytes before the header are accepted when the file ends as a PDF does (some producers prepend junk).
    return at === 0 || (at > 0 && buf.subarray(Math.max(0, buf.length - 1024)).includes('%%EOF'));
  },
  async open(bytes, limits) {
    const worker = { memoryMb: limits.pdfMemoryMb ?? 512, timeoutMs: limits.pdfTimeoutMs ?? 120_000 };
    const read = await readOnWorker(bytes, limits.maxPdfPages ?? 500, limits.maxUncompressedBytes, worker);
    return {
      units: read.units.map((html) => ({ html })),
      write: (translations, target) =>
        writeOnWorker({ bytes, plan: read.plan, translations, target, maxStreamBytes: limits.maxUncompressedBytes }, worker),
    };
  },
};
