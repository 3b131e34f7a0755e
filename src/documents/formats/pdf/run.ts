// PDF work off the main thread: each read or write runs on a worker thread of its own with a heap cap and a
// deadline, so that a compression bomb, a deeply nested object or a page tree of 100,000 pages costs that
// thread and never the server. Past the heap cap or the deadline the thread is ended and the file refused by name.
import { Worker } from 'node:worker_threads';
import { DocumentError } from '../types.ts';
import type { PdfPlan, PdfRead } from './read.ts';

export type PdfJob =
  | { op: 'read'; bytes: Uint8Array; maxPages: number }
  | { op: 'write'; bytes: Uint8Array; plan: PdfPlan; translations: string[]; target: string; maxStreamBytes: number };

export interface PdfWorkerLimits {
  memoryMb: number;
  timeoutMs: number;
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

function run<T>(job: PdfJob, limits: PdfWorkerLimits): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const worker = new Worker(ENTRY, {
      workerData: job,
      execArgv: [],
      stdout: false,
      stderr: false,
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.ceil(limits.memoryMb / 8)), stackSizeMb: 8 },
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(() => settle(() => reject(new DocumentError(`The PDF took longer than ${limits.timeoutMs} ms to ${job.op === 'read' ? 'read' : 'write'} (DRAGOMAN_PDF_TIMEOUT_MS): it is too complex or built to stall a reader.`))), limits.timeoutMs);
    worker.on('message', (msg: { ok?: T; refused?: string; failed?: string }) => {
      settle(() => {
        if (msg.refused !== undefined) reject(new DocumentError(msg.refused));
        else if (msg.failed !== undefined) reject(new DocumentError(msg.failed === 'too-deep' ? 'The PDF is nested too deeply to read (a hostile or damaged file).' : 'The PDF could not be read: it is damaged.'));
        else resolve(msg.ok as T);
      });
    });
    worker.on('error', (err) => {
      const oom = (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      settle(() => reject(oom ? new DocumentError(`The PDF needs more than ${limits.memoryMb} MB of memory to ${job.op} (DRAGOMAN_PDF_MEMORY_MB): it is too large or built to exhaust a reader (a compression bomb).`) : new DocumentError('The PDF could not be read: it is damaged.')));
    });
    worker.on('exit', () => settle(() => reject(new DocumentError('The PDF could not be read: its reader stopped.'))));
  });
}

export const readOnWorker = (bytes: Uint8Array, maxPages: number, limits: PdfWorkerLimits): Promise<PdfRead> => run({ op: 'read', bytes, maxPages }, limits);

export const writeOnWorker = (
  job: Omit<Extract<PdfJob, { op: 'write' }>, 'op'>,
  limits: PdfWorkerLimits,
): Promise<Uint8Array> => run<Uint8Array>({ op: 'write', ...job }, limits).then((b) => new Uint8Array(b));
