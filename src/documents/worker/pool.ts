// The document workers: a few threads that open, plan and write documents, each with a heap limit
// (DRAGOMAN_DOCUMENT_WORKER_MEMORY_MB) and a wall-clock limit per job (DRAGOMAN_DOCUMENT_WORKER_TIMEOUT). A job
// that exhausts either is ended with its worker (terminated, and a new one started for the next job) and fails
// with a DocumentTooCostly naming the limit: the file's own request or job fails, the server goes on. Jobs beyond
// DRAGOMAN_DOCUMENT_WORKERS wait their turn; a job's time counts from when a worker takes it.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { ApiError, invalidRequest } from '../../errors/api-error.ts';
import type { DocumentLimits, FormatId } from '../formats/index.ts';
import { tableTransfer, type SegmentTable } from '../segment-table.ts';
import type { DocumentTask, FromDocumentWorker, ToDocumentWorker } from './protocol.ts';
import type { OverQuota, PlannedDocument } from './tasks.ts';

export interface DocumentWorkerSettings {
  /** Threads working on documents at once. */
  documentWorkers: number;
  /** Heap (old generation) of each, in MB. */
  documentWorkerMemoryMb: number;
  /** Longest one open-and-plan or one write may take, in ms. */
  documentWorkerTimeoutMs: number;
}

/** A document that needs more memory or time than a document may have: refused (413), or its job failed. */
export class DocumentTooCostly extends ApiError {
  constructor(message: string) {
    super(413, 'invalid_request', message);
    this.name = 'DocumentTooCostly';
  }
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

interface Job {
  task: DocumentTask;
  transfer: ArrayBuffer[];
  resolve(msg: FromDocumentWorker): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
  /** Why it is being ended (set before terminate, read by the exit handler). */
  ending: Error | undefined;
}

export class DocumentWorkers {
  private readonly slots = new Set<Slot>();
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly settings: DocumentWorkerSettings) {
    // One started now: a worker's start (and, from the TypeScript sources, its compilation) takes seconds on a busy
    // machine, which the first upload need not wait for.
    this.start();
  }

  /** The file's format, its units' sentences and characters; `charactersLeft`: planning stops past it. */
  async plan(bytes: Uint8Array, filename: string, limits: DocumentLimits, charactersLeft: number | null): Promise<PlannedDocument | OverQuota> {
    await nextTurn(); // the copy (tens of ms for a large file) is a turn of its own, not added to the caller's
    const copy = new Uint8Array(bytes); // moved to the worker; the caller keeps its own
    const reply = await this.run({ op: 'plan', bytes: copy, filename, limits, charactersLeft }, [copy.buffer]);
    if ('error' in reply) {
      if (reply.refusal) throw invalidRequest(reply.error);
      // A parser's own exception on a damaged file: the file's problem, said without its content.
      throw invalidRequest('The file could not be read: it is damaged or not what its content first looks like.');
    }
    return (reply as { planned: PlannedDocument | OverQuota }).planned;
  }

  /** The translated file, from the original and each unit's translated sentences. */
  async write(bytes: Uint8Array, format: FormatId, limits: DocumentLimits, translations: SegmentTable, target: string): Promise<Uint8Array> {
    await nextTurn();
    const copy = new Uint8Array(bytes);
    const reply = await this.run({ op: 'write', bytes: copy, format, limits, translations, target }, [copy.buffer, ...tableTransfer(translations)]);
    if ('error' in reply) throw new Error(`document worker: ${reply.error}`);
    return (reply as { written: Uint8Array }).written;
  }

  async close(): Promise<void> {
    this.closed = true;
    const stopped = new Error('The server is shutting down.');
    for (const job of this.queue.splice(0)) job.reject(stopped);
    await Promise.all([...this.slots].map((s) => this.end(s, stopped)));
  }

  private run(task: DocumentTask, transfer: ArrayBuffer[]): Promise<FromDocumentWorker> {
    if (this.closed) return Promise.reject(new Error('The document workers are closed.'));
    return new Promise((resolve, reject) => {
      this.queue.push({ task, transfer, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = [...this.slots].find((s) => s.ready && s.job === undefined && s.ending === undefined);
      if (!slot) {
        if (this.slots.size < this.settings.documentWorkers) this.start();
        return; // a worker that becomes ready (or free) pumps again
      }
      this.give(slot, this.queue.shift()!);
    }
  }

  private give(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.ref(); // work in flight: its answer is awaited
    const seconds = this.settings.documentWorkerTimeoutMs / 1000;
    slot.timer = setTimeout(() => {
      void this.end(slot, new DocumentTooCostly(
        `The document took longer than ${seconds} s to ${job.task.op === 'plan' ? 'read' : 'write'} (DRAGOMAN_DOCUMENT_WORKER_TIMEOUT), ` +
          'the limit for one document: split it into smaller files.',
      ));
    }, this.settings.documentWorkerTimeoutMs);
    const msg: ToDocumentWorker = { ...job.task, id: this.nextId++ };
    slot.worker.postMessage(msg, job.transfer);
  }

  private start(): void {
    if (this.closed) return;
    const worker = new Worker(ENTRY, {
      execArgv: [],
      stdout: false,
      stderr: false,
      resourceLimits: { maxOldGenerationSizeMb: this.settings.documentWorkerMemoryMb, maxYoungGenerationSizeMb: 32 },
    });
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined, ending: undefined };
    this.slots.add(slot);
    worker.unref(); // an idle worker never keeps the process alive
    worker.on('message', (msg: FromDocumentWorker) => {
      if ('ready' in msg) {
        slot.ready = true;
        this.pump();
        return;
      }
      const job = slot.job;
      clearTimeout(slot.timer);
      slot.job = undefined;
      worker.unref();
      job?.resolve(msg);
      this.pump();
    });
    worker.on('error', (err: Error & { code?: string }) => {
      slot.ending ??= err.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? new DocumentTooCostly(
            `The document needs more memory than ${this.settings.documentWorkerMemoryMb} MB (DRAGOMAN_DOCUMENT_WORKER_MEMORY_MB), ` +
              'the limit for one document: split it into smaller files.',
          )
        : err;
    });
    worker.on('exit', () => {
      this.slots.delete(slot);
      clearTimeout(slot.timer);
      const job = slot.job;
      slot.job = undefined;
      const why = slot.ending ?? new Error('document worker exited');
      job?.reject(why);
      // A worker that could not even start would fail the next the same way: the waiting jobs fail with it.
      if (!slot.ready) for (const waiting of this.queue.splice(0)) waiting.reject(why);
      this.pump();
    });
  }

  private async end(slot: Slot, why: Error): Promise<void> {
    slot.ending ??= why;
    await slot.worker.terminate();
  }
}
