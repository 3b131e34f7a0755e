// Jobs sharing one worker take turns at decoder-step boundaries (iteration-level scheduling, as Orca, vLLM and Text
// Generation Inference do). A worker holds at most one interactive and one bulk job (pool.ts); before each of its
// onnxruntime runs a job asks for its turn, and the turn goes to interactive work first, oldest first, unless bulk work
// waits and has had less than its minimum share of the worker's recent time. A bulk job's runs are kept short
// (yieldMs), so a one-sentence
// request that arrives while a document decodes waits for at most one short run, not for the whole batch.
import type { Priority } from '../types.ts';
import type { TurnSettings } from '../settings.ts';

export interface Turn {
  readonly priority: Priority;
  readonly seq: number;
  /** Set while the job waits for its turn. */
  wake?: () => void;
}

/** Worker time is forgotten by halves, so the share is that of the last minute or so, not of the server's life. */
const SHARE_HALF_LIFE_MS = 30_000;

export class Turns {
  private holder: Turn | undefined;
  private waiting: Turn[] = [];
  private seq = 0;
  /** When the holder's current stretch began. */
  private since = 0;
  /** Time each class held the worker, older time weighing less. */
  private readonly held: Record<Priority, number> = { interactive: 0, bulk: 0 };

  constructor(private readonly settings: TurnSettings) {}

  get scheduling(): TurnSettings['scheduling'] {
    return this.settings.scheduling;
  }

  join(priority: Priority): Turn {
    return { priority, seq: this.seq++ };
  }

  /** Resolves when `job` may run on the worker: at once when it holds the turn and nothing should pass it. */
  async take(job: Turn): Promise<void> {
    if (this.holder === job) {
      this.account();
      const next = this.choose([job, ...this.waiting]);
      if (next === job) return;
      this.waiting.push(job);
      this.hand(next);
    } else if (!this.holder) {
      this.holder = job;
      this.since = performance.now();
      return;
    } else {
      this.waiting.push(job);
    }
    await new Promise<void>((resolve) => (job.wake = resolve));
  }

  /** The job is over (done or failed): the turn goes on. */
  leave(job: Turn): void {
    if (this.holder !== job) {
      this.waiting = this.waiting.filter((w) => w !== job);
      return;
    }
    this.account();
    this.holder = undefined;
    if (this.waiting.length) this.hand(this.choose(this.waiting));
  }

  /** Bulk's share of the worker's recent time; 1 while the worker has held nothing (nothing is owed). */
  bulkShare(): number {
    const total = this.held.bulk + this.held.interactive;
    return total > 0 ? this.held.bulk / total : 1;
  }

  private hand(next: Turn): void {
    this.waiting = this.waiting.filter((w) => w !== next);
    this.holder = next;
    this.since = performance.now();
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
  }

  private choose(candidates: Turn[]): Turn {
    const oldest = (list: Turn[]) => list.reduce((a, b) => (b.seq < a.seq ? b : a));
    if (this.settings.scheduling === 'fifo') return oldest(candidates);
    const interactive = candidates.filter((c) => c.priority === 'interactive');
    const bulk = candidates.filter((c) => c.priority === 'bulk');
    if (!interactive.length) return oldest(bulk);
    if (bulk.length && this.bulkShare() < this.settings.bulkShare) return oldest(bulk);
    return oldest(interactive);
  }
}
