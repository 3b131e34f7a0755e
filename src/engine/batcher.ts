// Dynamic batching: sentences of concurrent requests for the same model and search settings wait together (at most
// batchWaitMs) and leave as one job: sorted by length, cut under a token budget (rows x beams x longest row), the
// oldest sentence always in the next batch so nothing starves. Results go back to each caller in its own order.
// The wait is only paid while requests are actually concurrent: a lone request on an idle pool leaves at once.
import { EventEmitter } from 'node:events';
import { ApiError } from '../service/errors.ts';
import type { GenerationRow } from './protocol.ts';
import type { WorkerPool } from './pool.ts';

interface Item {
  key: string;
  model: string;
  beams: number;
  nBest: number;
  row: GenerationRow;
  enqueued: number;
  seq: number;
  /** The rows of one submit(): when one fails, the others still queued are dropped (no work for a failed request). */
  group: object;
  resolve: (hypotheses: number[][]) => void;
  reject: (err: Error) => void;
}

export interface BatchEvent {
  model: string;
  rows: number;
  beams: number;
  /** Padded source tokens of the batch (rows x longest row). */
  sourceTokens: number;
  /** Tokens generated (best hypothesis of every row). */
  generatedTokens: number;
  ms: number;
  waitedMs: number;
}

/** How long one overlap of requests keeps the batcher in "wait to gather" mode. */
const CONCURRENCY_WINDOW_MS = 1000;

export interface BatcherSettings {
  batchTokens: number;
  batchWaitMs: number;
}

export class Batcher extends EventEmitter {
  private queue: Item[] = [];
  private timer: NodeJS.Timeout | undefined;
  private seq = 0;
  /** Last time requests overlapped (one arriving while others wait or run; a batch answering several requests). */
  private concurrentAt = -Infinity;
  /** When a worker last became free: the callers it just answered usually send their next request right away. */
  private readyAt = -Infinity;

  constructor(private readonly pool: WorkerPool, private readonly settings: BatcherSettings) {
    super();
    pool.on('idle', () => {
      this.readyAt = performance.now();
      this.pump();
    });
  }

  get depth(): number {
    return this.queue.length;
  }

  /** Queues rows of one request; resolves with each row's hypotheses (best first), in the rows' order. */
  submit(model: string, beams: number, nBest: number, rows: GenerationRow[]): Promise<number[][][]> {
    const key = `${model}\u0000${beams}\u0000${nBest}`;
    const now = performance.now();
    const group = {};
    if (this.queue.length || this.pool.busyCount() > 0) this.concurrentAt = now;
    const done = rows.map((row) => new Promise<number[][]>((resolve, reject) => {
      this.queue.push({ key, model, beams, nBest, row, enqueued: now, seq: this.seq++, resolve, reject, group });
    }));
    // A pending gather timer decides: callers answered by the last batch resubmit one after the other in the same
    // tick, and checking the clock on each arrival would send the first ones off before the rest are in.
    if (!this.timer) this.pump();
    return Promise.all(done).catch((err: unknown) => {
      this.queue = this.queue.filter((i) => i.group !== group);
      throw err;
    });
  }

  private cost(item: Item): number {
    return item.row.ids.length * item.beams;
  }

  private pump(): void {
    while (this.queue.length && this.pool.idleCount() > 0) {
      const oldest = this.queue[0]!;
      const sameKey = this.queue.filter((i) => i.key === oldest.key);
      // Under concurrency the wait counts from when a worker freed up, not from when the oldest sentence arrived:
      // otherwise the one request that queued during the last batch leaves alone and the rest queue behind it
      // (batches alternating 1, 15, 1, 15 instead of 16, 16).
      const waited = performance.now() - Math.max(oldest.enqueued, this.readyAt);
      const queuedCost = sameKey.reduce((s, i) => s + this.cost(i), 0);
      const concurrent = performance.now() - this.concurrentAt < CONCURRENCY_WINDOW_MS;
      if (concurrent && waited < this.settings.batchWaitMs && queuedCost < this.settings.batchTokens) {
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, Math.max(0, this.settings.batchWaitMs - waited));
        return;
      }
      // With several idle workers, a backlog is shared out between them instead of going to one.
      const maxRows = Math.ceil(sameKey.length / this.pool.idleCount());
      this.dispatch(this.cut(sameKey, oldest, maxRows));
    }
  }

  /** Sorts by length and returns the run of neighbours (under the token budget and maxRows) holding the oldest item. */
  private cut(items: Item[], oldest: Item, maxRows: number): Item[] {
    const sorted = [...items].sort((a, b) => a.row.ids.length - b.row.ids.length || a.seq - b.seq);
    let chunk: Item[] = [];
    let longest = 0;
    for (const item of sorted) {
      const len = item.row.ids.length;
      const full = chunk.length >= maxRows || (chunk.length + 1) * Math.max(longest, len) * item.beams > this.settings.batchTokens;
      if (chunk.length && full) {
        if (chunk.includes(oldest)) return chunk;
        chunk = [];
        longest = 0;
      }
      chunk.push(item);
      longest = Math.max(longest, len);
    }
    return chunk;
  }

  private dispatch(batch: Item[]): void {
    const taken = new Set(batch);
    this.queue = this.queue.filter((i) => !taken.has(i));
    const first = batch[0]!;
    const started = performance.now();
    const waitedMs = started - Math.min(...batch.map((i) => i.enqueued));
    this.pool.run({ model: first.model, beams: first.beams, nBest: first.nBest, rows: batch.map((i) => i.row) }).then(
      (hypotheses) => {
        // Callers answered together will likely come back together: stay in gathering mode.
        if (new Set(batch.map((i) => i.group)).size > 1) this.concurrentAt = performance.now();
        batch.forEach((item, i) => item.resolve(hypotheses[i] ?? []));
        const event: BatchEvent = {
          model: first.model,
          rows: batch.length,
          beams: first.beams,
          sourceTokens: batch.length * Math.max(...batch.map((i) => i.row.ids.length)),
          generatedTokens: hypotheses.reduce((s, h) => s + (h[0]?.length ?? 0), 0),
          ms: performance.now() - started,
          waitedMs,
        };
        this.emit('batch', event);
      },
      (err: Error) => batch.forEach((item) => item.reject(err)),
    );
  }

  /** Stops batching; sentences still waiting fail with a 503 (nothing is left hanging). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const waiting = this.queue;
    this.queue = [];
    for (const item of waiting) item.reject(new ApiError(503, 'server_error', 'The translation engine is shutting down. Retrying later is safe.'));
  }
}
