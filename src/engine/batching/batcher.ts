// Dynamic batching: sentences of concurrent requests for the same model and search settings wait together (at most
// batchWaitMs) and leave as one job: sorted by length, cut under a token budget (rows x beams x longest row) and
// into rows of similar length, the oldest sentence always in the next batch so nothing starves. Results go back to each caller in its own order.
// The wait is only paid while requests are actually concurrent: a lone request on an idle pool leaves at the end of
// the event loop's turn (setImmediate: microseconds), together with whatever arrived in that same turn — a burst of
// sixteen requests on an idle server is one batch, not one alone and fifteen queued behind it.
// With priorities (DRAGOMAN_SCHEDULING=priority), interactive and bulk rows never share a batch, interactive batches
// leave first, and each priority has its own place on a worker (pool.ts), so an interactive batch goes to a worker
// still decoding a bulk one and takes turns with it there (pool/turns.ts).
import { EventEmitter } from 'node:events';
import { EngineUnavailable } from '../errors.ts';
import type { GenerationRow } from '../search/types.ts';
import type { WorkerPool } from '../pool/pool.ts';
import type { Priority } from '../types.ts';

interface Item {
  key: string;
  model: string;
  beams: number;
  nBest: number;
  priority: Priority;
  row: GenerationRow;
  enqueued: number;
  seq: number;
  /** The rows of one submit(): when one fails, the others still queued are dropped (no work for a failed request). */
  group: object;
  resolve: (hypotheses: number[][]) => void;
  reject: (err: Error) => void;
}

/** A request's way to drop its waiting rows: its client's signal, and whether dropping is allowed right now. */
export interface Cancellation {
  signal: AbortSignal;
  /** False while another request waits for the same sentences (they must still be translated). */
  dropWaiting: () => boolean;
}

function clientGoneError(): EngineUnavailable {
  return new EngineUnavailable('clientGone');
}

export interface BatchEvent {
  model: string;
  priority: Priority;
  rows: number;
  beams: number;
  /** Padded source tokens of the batch (rows x longest row). */
  sourceTokens: number;
  /** Tokens generated (best hypothesis of every row). */
  generatedTokens: number;
  ms: number;
  waitedMs: number;
}

/** Past this many source tokens a row's batch shrinks with the square of its length (Batcher.overBudget). */
const LONG_ROW_TOKENS = 64;

/**
 * Rows of very different lengths do not share a batch: the short ones would wait for the long one's decoding (a
 * one-sentence request behind the rows of a 100,000-letter one), and their padding is wasted work. Ordinary
 * sentences (up to a few dozen tokens) are always similar.
 */
function isLong(item: Item): boolean {
  return item.row.ids.length > LONG_ROW_TOKENS;
}

function similarLength(shortest: number, len: number): boolean {
  return len <= 2 * shortest + 32;
}

/** How long one overlap of requests keeps the batcher in "wait to gather" mode. */
const CONCURRENCY_WINDOW_MS = 1000;

export interface BatcherSettings {
  batchTokens: number;
  batchWaitMs: number;
  /** Default priority. */
  scheduling?: 'priority' | 'fifo';
}

export class Batcher extends EventEmitter {
  private queue: Item[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Pending end-of-turn decision: the rows queued since arrived in this turn of the event loop. */
  private turn: NodeJS.Immediate | undefined;
  private seq = 0;
  /** Batches with a long row on a worker now: see longAllowed(). */
  private longRunning = 0;
  /**
   * Last time requests overlapped (one arriving while others wait or run; a batch answering several requests), per
   * priority with priorities: a one-sentence request does not wait to gather because bulk work is running, since it
   * never shares a batch with it.
   */
  private readonly concurrentAt: Record<Priority, number> = { interactive: -Infinity, bulk: -Infinity };
  /** When a worker last became free: the callers it just answered usually send their next request right away. */
  private readyAt = -Infinity;
  /** Batches each request (its submit's group) has had rows in: for anchor(). */
  private readonly served = new WeakMap<object, number>();

  constructor(private readonly pool: WorkerPool, private readonly settings: BatcherSettings) {
    super();
    pool.on('idle', () => {
      this.readyAt = performance.now();
      this.pump();
    });
    // No worker can load the models: what waits would wait for good.
    pool.on('unavailable', () => this.failAll(this.unavailable()));
  }

  get depth(): number {
    return this.queue.length;
  }

  /** Rows waiting, per priority. */
  queued(): Record<Priority, number> {
    const out: Record<Priority, number> = { interactive: 0, bulk: 0 };
    for (const item of this.queue) out[item.priority]++;
    return out;
  }

  private get priorities(): boolean {
    return (this.settings.scheduling ?? 'priority') === 'priority';
  }

  /** The place on a worker an item needs: its priority's, or any (first come, first served). */
  private placeOf(item: Item): Priority {
    return this.priorities ? item.priority : 'interactive';
  }

  /**
   * Queues rows of one request; resolves with each row's hypotheses (best first), in the rows' order. `cancel`:
   * when the request's client has gone, its rows still waiting are dropped (those on a worker finish).
   */
  submit(
    model: string, beams: number, nBest: number, rows: GenerationRow[], cancel?: Cancellation, priority: Priority = 'interactive',
  ): Promise<number[][][]> {
    if (this.pool.loadFailure !== undefined && this.pool.alive() === 0) return Promise.reject(this.unavailable());
    if (cancel?.signal.aborted) return Promise.reject(clientGoneError());
    // Constrained rows never share a job with others: they take another search (search/constrained-beam.ts).
    const key = `${model}\u0000${beams}\u0000${nBest}\u0000${rows.some((r) => r.constraints) ? 'c' : ''}\u0000${this.priorities ? priority : ''}`;
    const now = performance.now();
    const group = {};
    // Overlap is work running or rows left from an earlier turn; arrivals in the same turn are one burst, not a sign
    // of load worth waiting for more.
    const place = this.priorities ? priority : 'interactive';
    const queuedToo = this.queue.some((i) => this.placeOf(i) === place);
    if (this.pool.busyWith(this.priorities ? priority : undefined) > 0 || (queuedToo && !this.turn)) this.concurrentAt[place] = now;
    const done = rows.map((row) => new Promise<number[][]>((resolve, reject) => {
      this.queue.push({ key, model, beams, nBest, priority, row, enqueued: now, seq: this.seq++, resolve, reject, group });
    }));
    const drop = () => {
      if (!cancel!.dropWaiting()) return;
      const waiting = this.queue.filter((i) => i.group === group);
      this.queue = this.queue.filter((i) => i.group !== group);
      for (const item of waiting) item.reject(clientGoneError());
    };
    if (cancel) cancel.signal.addEventListener('abort', drop, { once: true });
    // A pending gather timer decides; else the end of this turn does: callers answered by the last batch, or a burst
    // of requests read in one poll, submit one after the other in the same turn, and deciding on each arrival would
    // send the first ones off before the rest are in.
    // An interactive arrival does not wait for a bulk batch's gather timer (it never joins that batch).
    if (!this.turn && (!this.timer || (this.priorities && priority === 'interactive'))) {
      this.turn = setImmediate(() => {
        this.turn = undefined;
        this.pump();
      });
    }
    return Promise.all(done).then(
      (hypotheses) => {
        cancel?.signal.removeEventListener('abort', drop);
        return hypotheses;
      },
      (err: unknown) => {
        cancel?.signal.removeEventListener('abort', drop);
        this.queue = this.queue.filter((i) => i.group !== group);
        throw err;
      },
    );
  }

  private cost(item: Item): number {
    return item.row.ids.length * item.beams;
  }

  /**
   * The sentence the next batch is built around: the oldest of the request served least so far. Oldest-first alone
   * let one request of 10,000 sentences hold every later request behind all of its batches (measured: 30-52 s
   * for a one-sentence request); now a newcomer goes into the next batch, and the big request fills the rest of it.
   */
  private anchor(candidates: Item[]): Item {
    let best = candidates[0]!;
    let bestServed = this.served.get(best.group) ?? 0;
    for (const item of candidates) {
      const served = this.served.get(item.group) ?? 0;
      if (served < bestServed) {
        best = item;
        bestServed = served;
        if (served === 0) break;
      }
    }
    return best;
  }

  private pump(): void {
    while (this.queue.length) {
      const free: Record<Priority, number> = { interactive: this.pool.freeFor('interactive'), bulk: this.pool.freeFor('bulk') };
      if (!free.interactive && !free.bulk) return;
      const longAllowed = this.longAllowed();
      const candidates = this.queue.filter((i) => free[this.placeOf(i)] > 0 && (longAllowed || !isLong(i)));
      if (!candidates.length) return;
      // Interactive rows first; within a priority, the request served least (anchor).
      const interactive = this.priorities ? candidates.filter((i) => i.priority === 'interactive') : [];
      const oldest = this.anchor(interactive.length ? interactive : candidates);
      const sameKey = candidates.filter((i) => i.key === oldest.key);
      // Under concurrency the wait counts from when a worker freed up, not from when the oldest sentence arrived:
      // otherwise the one request that queued during the last batch leaves alone and the rest queue behind it
      // (batches alternating 1, 15, 1, 15 instead of 16, 16).
      const waited = performance.now() - Math.max(oldest.enqueued, this.readyAt);
      const queuedCost = sameKey.reduce((s, i) => s + this.cost(i), 0);
      const concurrent = performance.now() - this.concurrentAt[this.placeOf(oldest)] < CONCURRENCY_WINDOW_MS;
      if (concurrent && waited < this.settings.batchWaitMs && queuedCost < this.settings.batchTokens) {
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, Math.max(0, this.settings.batchWaitMs - waited));
        return;
      }
      // With several idle workers, a backlog is shared out between them instead of going to one.
      const maxRows = Math.ceil(sameKey.length / free[this.placeOf(oldest)]);
      this.dispatch(this.cut(sameKey, oldest, maxRows));
    }
  }

  /**
   * Sorts by length and returns the run of neighbours holding the oldest item, closed by whichever limit comes
   * first: maxRows, the token budget (rows x beams x longest row), the long-row budget, or the length spread.
   */
  private cut(items: Item[], oldest: Item, maxRows: number): Item[] {
    const sorted = [...items].sort((a, b) => a.row.ids.length - b.row.ids.length || a.seq - b.seq);
    let chunk: Item[] = [];
    let longest = 0;
    for (const item of sorted) {
      const len = item.row.ids.length;
      const full = chunk.length >= maxRows || this.overBudget(chunk.length + 1, Math.max(longest, len), item.beams)
        || !similarLength(chunk[0]?.row.ids.length ?? len, len);
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

  /**
   * A batch holds its place on a worker until its longest row is done (other work of its priority waits for that, and
   * first come, first served everything does): its decoding runs
   * about as many steps as that row has tokens. So the budget is rows x beams x longest, and past
   * LONG_ROW_TOKENS also rows x beams x longest², which keeps a batch of rows at the length limit (text with no
   * place to cut) to a few rows instead of filling the budget.
   */
  private overBudget(rows: number, longest: number, beams: number): boolean {
    const budget = this.settings.batchTokens;
    return rows * beams * longest > budget || rows * beams * longest * longest > budget * LONG_ROW_TOKENS;
  }

  /**
   * Long rows may keep every worker but one busy: a batch of them decodes for hundreds of steps and holds its place
   * on the worker, so with two or more workers a short sentence arriving always finds one free for it.
   */
  private longAllowed(): boolean {
    const workers = this.pool.alive();
    return workers < 2 || this.longRunning < workers - 1;
  }

  private dispatch(batch: Item[]): void {
    const long = batch.some(isLong);
    if (long) this.longRunning++;
    for (const group of new Set(batch.map((i) => i.group))) this.served.set(group, (this.served.get(group) ?? 0) + 1);
    const taken = new Set(batch);
    this.queue = this.queue.filter((i) => !taken.has(i));
    const first = batch[0]!;
    const started = performance.now();
    const waitedMs = started - Math.min(...batch.map((i) => i.enqueued));
    const run = this.pool.run({
      model: first.model, beams: first.beams, nBest: first.nBest, rows: batch.map((i) => i.row), ...(this.priorities ? { priority: first.priority } : {}),
    });
    // The pool's 'idle' comes before this settles: pump again once the count is down.
    if (long) {
      void run.catch(() => undefined).finally(() => {
        this.longRunning--;
        this.pump();
      });
    }
    run.then(
      (hypotheses) => {
        // Callers answered together will likely come back together: stay in gathering mode.
        if (new Set(batch.map((i) => i.group)).size > 1) this.concurrentAt[this.placeOf(first)] = performance.now();
        batch.forEach((item, i) => item.resolve(hypotheses[i] ?? []));
        const event: BatchEvent = {
          model: first.model,
          priority: first.priority,
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

  private unavailable(): EngineUnavailable {
    return new EngineUnavailable('modelsUnloadable');
  }

  private failAll(err: Error): void {
    const waiting = this.queue;
    this.queue = [];
    for (const item of waiting) item.reject(err);
  }

  /** Stops batching; sentences still waiting fail with EngineUnavailable (nothing is left hanging). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.turn) clearImmediate(this.turn);
    this.timer = undefined;
    this.turn = undefined;
    this.failAll(new EngineUnavailable('shuttingDown'));
  }
}
