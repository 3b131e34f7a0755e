// The PDF thread: jobs (read or write) arrive one at a time, each answer posted back; a DocumentError keeps its
// message, anything else (a parser's exception on a damaged file) is reported as damage without the file's content.
import { parentPort } from 'node:worker_threads';
import { DocumentError } from '../types.ts';
import { readPdf } from './read.ts';
import { writePdf } from './write.ts';
import type { PdfJob } from './run.ts';

parentPort!.on('message', (job: PdfJob) => {
  void (async () => {
    try {
      const result = job.op === 'read'
        ? await readPdf(job.bytes, { maxPages: job.maxPages, maxStreamBytes: job.maxStreamBytes })
        : await writePdf(job.bytes, job.plan, job.translations, job.target, { maxStreamBytes: job.maxStreamBytes });
      parentPort!.postMessage({ ok: result });
    } catch (err) {
      parentPort!.postMessage(err instanceof DocumentError ? { refused: err.message } : { failed: err instanceof RangeError ? 'too-deep' : 'damaged' });
    }
  })();
});
