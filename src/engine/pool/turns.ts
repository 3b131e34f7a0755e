// Jobs sharing one worker take turns at decoder-step boundaries (iteration-level scheduling, as Orca, vLLM and Text
// Generation Inference do). A worker holds at most one interactive and one bulk job (pool.ts); before each of its
// onnxruntime runs a job asks for its turn, and the turn goes to interactive work first, oldest first, unless bulk work
// waits and has had less than its minimum share of the worker's recent time. A bulk job's runs are kept short
// (yieldMs), so a one-sentence
// request that arrives while a document decodes waits for at most one short run, not for the whole batch.
import type { Priority } from '../types.ts';
import type { TurnSettings } from '../settings.ts';

export interface Turn {
  /** Its class; an interactive job past its budget becomes bulk (demote()). */
  priority: Priority;
  readonly seq: number;
  /** When it last got the turn (bulk jobs go round in this order). */
  served?: number;
  /** Worker time it has held, in ms. */
  held?: number;
  /** Set while the job waits for its turn. */
  wake?: () => void;
}

/** Worker time is forgotten by halves, so the share is that of the last minute or so, not of the server's life. */
const SHARE_HALF_LIFE_MS = 30_000;

/**
 * Longest a bulk job holds back for an interactive job the pool has sent and the worker not yet read: a safety net,
 * the message is read in the event loop's next turn.
 */
const ARRIVAL_WAIT_MS = 250;

/** Interactive work is near for this long after the last interactive job left: more is likely to come. */
const NEAR_MS = 1000;

export class Turns {
  private holder: Turn | undefined;
  private waiting: Turn[] = [];
  private seq = 0;
  /** When the holder's current stretch began. */
  private since = 0;
  /** Time each class held the worker, older time weighing less. */
  private readonly held: Record<Priority, number> = { interactive: 0, bulk: 0 };

  /** Interactive jobs on the worker (joined, not left). */
  private interactiveJobs = new Set<Turn>();
  /** When the last interactive job left. */
  private interactiveLeft = -Infinity;
  /** Worker time of the recent interactive jobs (a moving average; undefined before the first). */
  private interactiveMs: number | undefined;
  /** Interactive jobs joined so far, against `sent()`. */
  private arrived = 0;
  /** Jobs sent up to this count are no longer waited for (ARRIVAL_WAIT_MS passed). */
  private waitedOut = 0;
  private arrivalTimer: NodeJS.Timeout | undefined;

  /**
   * `sent`: how many interactive jobs the pool has sent to this worker (a counter in shared memory the pool raises as
   * it posts one). onnxruntime-node's run is synchronous on the worker's thread, so a job sent during a bulk run is
   * read only after it: without the counter the bulk job would take its next turn before the message is read, and the
   * interactive job would wait for two bulk runs instead of the one in progress.
   */
  constructor(private readonly settings: TurnSettings, private readonly sent: () => number = () => 0) {}

  get scheduling(): TurnSettings['scheduling'] {
    return this.settings.scheduling;
  }

  join(priority: Priority): Turn {
    const turn: Turn = { priority, seq: this.seq++ };
    if (priority === 'interactive') {
      this.arrived++;
      this.interactiveJobs.add(turn);
      // The arriving job takes its first turn once its search has started (a few microtasks on); if it cannot yet
      // (a model load before it on the worker), the turn goes on without it.
      if (!this.holder && this.waiting.length) setImmediate(() => this.handOn());
    }
    return turn;
  }

  /**
   * How long a bulk run may last now: while interactive work is on the worker, on its way or near (NEAR_MS), no
   * longer than a recent interactive job's own worker time, so a short request waits for the bulk run in progress
   * about as long as it runs itself; otherwise `yieldMs`.
   */
  bulkRunMs(yieldMs: number): number {
    const near = this.interactiveJobs.size > 0 || this.arriving() || performance.now() - this.interactiveLeft < NEAR_MS;
    return near && this.interactiveMs !== undefined ? Math.min(yieldMs, this.interactiveMs) : yieldMs;
  }



  /** Resolves when `job` may run on the worker: at once when it holds the turn and nothing should pass it. */
  async take(job: Turn): Promise<void> {
    if (this.holder === job) {
      this.account();
      this.holder = undefined;
    } else if (this.holder) {
      this.waiting.push(job);
      return this.parked(job);
    }
    const next = this.grant([job, ...this.waiting]);
    if (next === job) {
      this.holder = job;
      this.since = performance.now();
      job.served = this.since;
      return;
    }
    this.waiting.push(job);
    if (next) this.hand(next);
    return this.parked(job);
  }

  /**
   * An interactive job that has used up its budget of worker time takes turns as bulk work from its next run on:
   * a long row does not hold the worker against the short requests that arrive meanwhile.
   */
  demote(job: Turn): void {
    job.priority = 'bulk';
    this.interactiveJobs.delete(job);
  }

  /** The job is over (done or failed): the turn goes on. */
  leave(job: Turn): void {
    if (this.holder === job) {
      this.account();
      this.holder = undefined;
    } else {
      this.waiting = this.waiting.filter((w) => w !== job);
    }
    if (this.interactiveJobs.delete(job)) {
      this.interactiveLeft = performance.now();
      const ms = job.held ?? 0;
      this.interactiveMs = this.interactiveMs === undefined ? ms : 0.7 * this.interactiveMs + 0.3 * ms;
    }
    this.handOn();
  }

  private parked(job: Turn): Promise<void> {
    return new Promise<void>((resolve) => (job.wake = resolve));
  }

  /** With the worker free, the turn goes to whoever should have it now (nobody while an interactive job is arriving). */
  private handOn(): void {
    if (this.holder || !this.waiting.length) return;
    const next = this.grant(this.waiting);
    if (next) this.hand(next);
  }

  /** An interactive job sent to the worker and not yet joined. */
  private arriving(): boolean {
    return this.settings.scheduling === 'priority' && this.sent() > Math.max(this.arrived, this.waitedOut);
  }

  /**
   * The job the free worker goes to: choose()'s, except that a bulk job that would go only because the interactive
   * job passing it is still on its way waits for it (at most ARRIVAL_WAIT_MS).
   */
  private grant(candidates: Turn[]): Turn | undefined {
    const next = this.choose(candidates);
    if (next.priority !== 'bulk' || !this.arriving() || this.bulkShare() < this.settings.bulkShare) return next;
    this.arrivalTimer ??= setTimeout(() => {
      this.arrivalTimer = undefined;
      this.waitedOut = this.sent();
      this.handOn();
    }, ARRIVAL_WAIT_MS);
    return undefined;
  }

  /** Bulk's share of the worker's recent time; 1 while the worker has held nothing (nothing is owed). */
  bulkShare(): number {
    const total = this.held.bulk + this.held.interactive;
    return total > 0 ? this.held.bulk / total : 1;
  }

  private hand(next: Turn): void {
    if (this.arrivalTimer && !this.arriving()) {
      clearTimeout(this.arrivalTimer);
      this.arrivalTimer = undefined;
    }
    this.waiting = this.waiting.filter((w) => w !== next);
    this.holder = next;
    this.since = performance.now();
    next.served = this.since;
    const wake = next.wake;
    next.wake = undefined;
    wake?.();
  }

  /** The holder's time since its stretch began counts for its class. */
  private account(): void {
    const now = performance.now();
    const held = now - this.since;
    this.since = now;
    if (!this.holder) return;
    const keep = 0.5 ** (held / SHARE_HALF_LIFE_MS);
    this.held.bulk *= keep;
    this.held.interactive *= keep;
    this.held[this.holder.priority] += held;
    this.holder.held = (this.holder.held ?? 0) + held;
  }

  private choose(candidates: Turn[]): Turn {
    const oldest = (list: Turn[]) => list.reduce((a, b) => (b.seq < a.seq ? b : a));
    // Bulk jobs (a bulk batch and an interactive one past its budget) go round: the one served least recently.
    const round = (list: Turn[]) => list.reduce((a, b) => ((b.served ?? -Infinity) < (a.served ?? -Infinity) ? b : a));
    if (this.settings.scheduling === 'fifo') return oldest(candidates);
    const interactive = candidates.filter((c) => c.priority === 'interactive');
    const bulk = candidates.filter((c) => c.priority === 'bulk');
    if (!interactive.length) return round(bulk);
    if (bulk.length && this.bulkShare() < this.settings.bulkShare) return round(bulk);
    return oldest(interactive);
  }
}
