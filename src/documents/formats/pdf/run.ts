// PDF work off the main thread: reads and writes run one at a time on a PDF thread with a heap cap, each job with
// a deadline, so that a compression bomb, a deeply nested object or a page tree of 100,000 pages costs that thread
// and never the server. Past the heap cap or the deadline the thread is ended, the file refused by name, and the
// next job starts a new thread. A thread that finished its job cleanly is kept for the next one (its start, pdf.js'
// loading and the fonts' parsing are most of a short PDF's cost) and ended after a minute without work. Each job's
// heap is its own in all but the fonts and their measured words, which the thread keeps.
import { Worker } from 'node:worker_threads';
import { DocumentError } from '../types.ts';
import type { PdfPlan, PdfRead } from './read.ts';

export type PdfJob =
  | { op: 'read'; bytes: Uint8Array; maxPages: number; maxStreamBytes: number }
  | { op: 'write'; bytes: Uint8Array; plan: PdfPlan; translations: string[]; target: string; maxStreamBytes: number };

export interface PdfWorkerLimits {
  memoryMb: number;
  timeoutMs: number;
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);
/** An idle PDF thread is ended after this long. */
const IDLE_MS = 60_000;

interface Thread {
  worker: Worker;
  memoryMb: number;
  idle: NodeJS.Timeout | undefined;
  /** The running job's end: set while a job runs. */
  settle: ((outcome: { msg?: { ok?: unknown; refused?: string; failed?: string }; error?: Error }) => void) | undefined;
}

let thread: Thread | undefined;
/** Jobs run one after another on the one thread. */
let queue: Promise<unknown> = Promise.resolve();

function startThread(memoryMb: number): Thread {
  const worker = new Worker(ENTRY, {
    execArgv: [],
    stdout: false,
    stderr: false,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.ceil(memoryMb / 8)), stackSizeMb: 8 },
  });
  const t: Thread = { worker, memoryMb, idle: undefined, settle: undefined };
  worker.unref();
  worker.on('message', (msg: { ok?: unknown; refused?: string; failed?: string }) => t.settle?.({ msg }));
  worker.on('error', (error) => {
    if (thread === t) thread = undefined;
    t.settle?.({ error });
  });
  worker.on('exit', () => {
    if (thread === t) thread = undefined;
    t.settle?.({ error: new Error('exit') });
  });
  return t;
}

function end(t: Thread): void {
  if (thread === t) thread = undefined;
  clearTimeout(t.idle);
  void t.worker.terminate();
}

function runNow<T>(job: PdfJob, limits: PdfWorkerLimits): Promise<T> {
  if (thread && thread.memoryMb !== limits.memoryMb) end(thread);
  const t = (thread ??= startThread(limits.memoryMb));
  clearTimeout(t.idle);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      end(t);
      finish(() => reject(new DocumentError(`The PDF took longer than ${limits.timeoutMs} ms to ${job.op === 'read' ? 'read' : 'write'} (DRAGOMAN_PDF_TIMEOUT_MS): it is too complex or built to stall a reader.`)));
    }, limits.timeoutMs);
    const finish = (fn: () => void) => {
      t.settle = undefined;
      clearTimeout(timer);
      fn();
    };
    t.settle = ({ msg, error }) => {
      if (error) {
        end(t);
        const oom = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
        finish(() => reject(oom
          ? new DocumentError(`The PDF needs more than ${limits.memoryMb} MB of memory to ${job.op} (DRAGOMAN_PDF_MEMORY_MB): it is too large or built to exhaust a reader (a compression bomb).`)
          : new DocumentError(error.message === 'exit' ? 'The PDF could not be read: its reader stopped.' : 'The PDF could not be read: it is damaged.')));
        return;
      }
      // A thread that failed on a file is not trusted with the next one.
      if (msg!.failed !== undefined) end(t);
      else t.idle = setTimeout(() => end(t), IDLE_MS).unref();
      finish(() => {
        if (msg!.refused !== undefined) reject(new DocumentError(msg!.refused));
        else if (msg!.failed !== undefined) reject(new DocumentError(msg!.failed === 'too-deep' ? 'The PDF is nested too deeply to read (a hostile or damaged file).' : 'The PDF could not be read: it is damaged.'));
        else resolve(msg!.ok as T);
      });
    };
    t.worker.postMessage(job);
  });
}

function run<T>(job: PdfJob, limits: PdfWorkerLimits): Promise<T> {
  const next = queue.then(() => runNow<T>(job, limits));
  queue = next.catch(() => undefined);
  return next;
}

export const readOnWorker = (bytes: Uint8Array, maxPages: number, maxStreamBytes: number, limits: PdfWorkerLimits): Promise<PdfRead> =>
  run({ op: 'read', bytes, maxPages, maxStreamBytes }, limits);

export const writeOnWorker = (
  job: Omit<Extract<PdfJob, { op: 'write' }>, 'op'>,
  limits: PdfWorkerLimits,
): Promise<Uint8Array> => run<Uint8Array>({ op: 'write', ...job }, limits).then((b) => new Uint8Array(b));
