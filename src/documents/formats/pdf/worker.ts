// The PDF worker: one job (read or write) per thread, its answer posted back; a DocumentError keeps its message,
// anything else (a parser's exception on a damaged file) is reported as damage without the file's content.
import { parentPort, workerData } from 'node:worker_threads';
import { DocumentError } from '../types.ts';
import { readPdf } from './read.ts';
import { writePdf } from './write.ts';
import type { PdfJob } from './run.ts';

const job = workerData as PdfJob;
try {
  const result = job.op === 'read'
    ? await readPdf(job.bytes, { maxPages: job.maxPages })
    : await writePdf(job.bytes, job.plan, job.translations, job.target, { maxStreamBytes: job.maxStreamBytes });
  parentPort!.postMessage({ ok: result });
} catch (err) {
  parentPort!.postMessage(err instanceof DocumentError ? { refused: err.message } : { failed: err instanceof RangeError ? 'too-deep' : 'damaged' });
}
