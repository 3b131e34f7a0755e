// The batcher's decisions, with a fake pool that records the jobs it gets (no models needed).
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/engine/batching/batcher.ts';
import type { GenerationJob, GenerationRow } from '../../src/engine/search/types.ts';
import type { WorkerPool } from '../../src/engine/pool/pool.ts';

class FakePool extends EventEmitter {
  jobs: GenerationJob[] = [];
  idle = 1;
  private pending: (() => void)[] = [];
  alive() {
    return this.idle + this.pending.length;
  }
  idleCount() {
    return this.idle;
  }
  freeFor() {
    return this.idle;
  }
  busyCount() {
    return this.pending.length;
  }
  /** Jobs given and not finished. */
  private running: GenerationJob[] = [];
  busyWith(priority: 'interactive' | 'bulk' | undefined) {
    return priority === undefined ? this.busyCount() : this.running.filter((j) => (j.priority ?? 'interactive') === priority).length;
  }
  run(job: GenerationJob): Promise<number[][][]> {
    this.jobs.push(job);
    this.running.push(job);
    this.idle--;
    return new Promise((resolve) => {
      // echo each row's first source id as its "translation"
      this.pending.push(() => resolve(job.rows.map((r) => [[r.ids[0]!]])));
    });
  }
  finishAll() {
    const p = this.pending;
    this.pending = [];
    this.running = [];
    for (const f of p) {
      this.idle++;
      f();
    }
    this.emit('idle');
  }
}

const row = (id: number, len: number): GenerationRow => ({ ids: [id, ...new Array<number>(len - 1).fill(0)], maxNewTokens: 10, minNewTokens: 0, forcedFirstId: undefined });
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The end of the current turn of the event loop, where the batcher decides on what arrived in it. */
const endOfTurn = () => new Promise((r) => setImmediate(r));

/** Finishes every batch until none is left, then checks that the small request and the n-row one got their own rows back. */
async function drainAndCheck(pool: FakePool, small: Promise<number[][][]>, big: Promise<number[][][]>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    pool.finishAll();
    await endOfTurn();
  }
  expect(await small).toEqual([[[500]]]);
  expect((await big).map((h) => h[0]![0])).toEqual(Array.from({ length: n }, (_, i) => i));
}

describe('Batcher', () => {
  it('sends a lone request on an idle pool at the end of its turn, without waiting batchWaitMs', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 10_000, batchWaitMs: 1000 });
    void b.submit('m', 1, 1, [row(1, 5)]);
    await endOfTurn();
    expect(pool.jobs).toHaveLength(1);
  });

  it('sends a burst of requests arriving in one turn on an idle pool as one job, without waiting batchWaitMs', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 10_000, batchWaitMs: 1000 });
    const answers = Array.from({ length: 16 }, (_, i) => b.submit('m', 1, 1, [row(i + 1, 3 + (i % 5))]));
    await endOfTurn();
    expect(pool.jobs).toHaveLength(1); // not one alone and fifteen queued behind it
    expect(pool.jobs[0]!.rows).toHaveLength(16);
    pool.finishAll();
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 16 }, (_, i) => [[[i + 1]]]));
  });

  it('while requests overlap, waits batchWaitMs to gather them into one job, and answers each in its own order', async () => {
    const pool = new FakePool();
    pool.idle = 2;
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 10_000, batchWaitMs: 30 });
    const r0 = b.submit('m', 1, 1, [row(9, 2)]); // alone: leaves at the end of its turn, keeps one worker busy
    await endOfTurn();
    const r1 = b.submit('m', 1, 1, [row(1, 5), row(2, 3)]);
    const r2 = b.submit('m', 1, 1, [row(3, 4)]);
    expect(pool.jobs).toHaveLength(1);
    await tick(60);
    expect(pool.jobs).toHaveLength(2);
    expect(pool.jobs[1]!.rows.map((r) => r.ids.length)).toEqual([3, 4, 5]); // sorted by length
    pool.finishAll();
    expect(await r0).toEqual([[[9]]]);
    expect(await r1).toEqual([[[1]], [[2]]]);
    expect(await r2).toEqual([[[3]]]);
  });

  it('a one-sentence request arriving while bulk work runs and gathers leaves at the end of its turn (it never joins a bulk batch)', async () => {
    const pool = new FakePool();
    pool.idle = 3;
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 10_000, batchWaitMs: 1000, scheduling: 'priority' });
    const bulk = b.submit('m', 1, 1, [row(1, 3)], undefined, 'bulk'); // alone: runs at the end of its turn
    await endOfTurn();
    const more = b.submit('m', 1, 1, [row(2, 3)], undefined, 'bulk'); // bulk overlaps bulk: gathers for batchWaitMs
    const short = b.submit('m', 1, 1, [row(3, 3)]);
    await endOfTurn();
    expect(pool.jobs.map((j) => [j.priority, j.rows.map((r) => r.ids[0])])).toEqual([['bulk', [1]], ['interactive', [3]]]);
    pool.finishAll();
    await Promise.all([bulk, short]);
    await tick(1100);
    expect(pool.jobs.map((j) => j.rows[0]!.ids[0])).toEqual([1, 3, 2]);
    pool.finishAll();
    await more;
  });

  it('after a worker frees up, a request that waited through the last batch still waits for the callers just answered', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 10_000, batchWaitMs: 30 });
    const a = b.submit('m', 1, 1, [row(1, 3)]); // alone: runs at the end of its turn
    await endOfTurn();
    const late = b.submit('m', 1, 1, [row(2, 3)]); // arrives while the worker is busy
    await tick(50); // ... and waits longer than batchWaitMs
    pool.finishAll(); // the worker frees up; the caller of `a` comes back right away:
    const again = b.submit('m', 1, 1, [row(3, 3)]);
    expect(pool.jobs).toHaveLength(1); // `late` did not leave alone
    await tick(50);
    expect(pool.jobs).toHaveLength(2);
    expect(pool.jobs[1]!.rows.map((r) => r.ids[0])).toEqual([2, 3]);
    pool.finishAll();
    await Promise.all([a, late, again]);
  });

  it('cuts under the token budget (rows x beams x longest), keeps models and settings apart, serves requests in turn', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 40, batchWaitMs: 0 });
    const all = b.submit('m', 1, 1, Array.from({ length: 8 }, (_, i) => row(i, 10)));
    const beam = b.submit('m', 4, 1, [row(100, 10), row(101, 10)]);
    const other = b.submit('n', 1, 1, [row(200, 10)]);
    for (let i = 0; i < 6; i++) {
      await tick(5);
      pool.finishAll(); // one job at a time: each finish lets the next batch go
    }
    // Each request in turn (the least served first), not all of the first one before the others.
    expect(pool.jobs.map((j) => `${j.model}/${j.beams}:${j.rows.length}`)).toEqual(['m/1:4', 'm/4:1', 'n/1:1', 'm/1:4', 'm/4:1']);
    expect((await all).map((h) => h[0]![0])).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect((await beam).map((h) => h[0]![0])).toEqual([100, 101]);
    expect(await other).toEqual([[[200]]]);
  });

  it('shares a backlog out between idle workers', async () => {
    const pool = new FakePool();
    pool.idle = 2;
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 10_000, batchWaitMs: 0 });
    const done = b.submit('m', 1, 1, Array.from({ length: 10 }, (_, i) => row(i, 5)));
    await tick(10);
    expect(pool.jobs.map((j) => j.rows.length)).toEqual([5, 5]);
    pool.finishAll();
    await done;
  });
});

describe('Batcher: a request whose client has gone', () => {
  it('drops its rows still waiting (those on a worker finish) and lets the others through', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 12, batchWaitMs: 0 });
    const gone = new AbortController();
    // 6 rows of 5 tokens, at most 12 tokens a batch: two rows leave, four wait.
    const abandoned = b.submit('m', 1, 1, [1, 2, 3, 4, 5, 6].map((id) => row(id, 5)), { signal: gone.signal, dropWaiting: () => true });
    const outcome = abandoned.then(() => 'resolved', (e: { message: string }) => e.message);
    await endOfTurn();
    expect(pool.jobs).toHaveLength(1);
    const other = b.submit('m', 1, 1, [row(9, 5)]);
    gone.abort();
    expect(await outcome).toMatch(/client closed the connection/);
    expect(b.depth).toBe(1); // only the other request's row waits
    pool.finishAll();
    await endOfTurn();
    pool.finishAll();
    expect(await other).toEqual([[[9]]]);
    expect(pool.jobs.flatMap((j) => j.rows.map((r) => r.ids[0]))).toEqual([1, 2, 9]);
  });

  it('keeps them while another request waits for the same sentences (dropWaiting false)', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 12, batchWaitMs: 0 });
    const gone = new AbortController();
    const kept = b.submit('m', 1, 1, [1, 2, 3].map((id) => row(id, 5)), { signal: gone.signal, dropWaiting: () => false });
    await endOfTurn();
    gone.abort();
    expect(b.depth).toBe(1);
    pool.finishAll();
    await endOfTurn();
    pool.finishAll();
    expect(await kept).toEqual([[[1]], [[2]], [[3]]]);
  });
});

describe('Batcher: fairness between requests', () => {
  it('a one-sentence request arriving behind a 100-sentence one goes in the very next batch', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 20, batchWaitMs: 0 });
    const big = b.submit('m', 1, 1, Array.from({ length: 100 }, (_, i) => row(i, 5))); // 4 rows a batch
    await endOfTurn();
    const small = b.submit('m', 1, 1, [row(500, 5)]);
    pool.finishAll();
    await endOfTurn();
    expect(pool.jobs[1]!.rows.map((r) => r.ids[0])).toContain(500);
    await drainAndCheck(pool, small, big, 100);
  });

  it('a short sentence arriving behind rows at the length limit is not batched with them', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 4096, batchWaitMs: 0 });
    const long = b.submit('m', 1, 1, Array.from({ length: 40 }, (_, i) => row(i, 256)));
    await endOfTurn();
    const small = b.submit('m', 1, 1, [row(500, 20)]);
    pool.finishAll();
    await endOfTurn();
    expect(pool.jobs[1]!.rows.map((r) => r.ids[0])).toEqual([500]);
    await drainAndCheck(pool, small, long, 40);
  });
});

describe('Batcher: budgets', () => {
  it('keeps batches of rows at the length limit to a few rows, and ordinary sentences to the token budget', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 4096, batchWaitMs: 0 });
    void b.submit('m', 1, 1, Array.from({ length: 40 }, (_, i) => row(i, 256)));
    await endOfTurn();
    // 4096 / 256 = 16 rows by tokens alone; the long-row budget (x 64 / 256) allows 4.
    expect(pool.jobs[0]!.rows).toHaveLength(4);
    const other = new FakePool();
    const short = new Batcher(other as unknown as WorkerPool, { batchTokens: 4096, batchWaitMs: 0 });
    void short.submit('m', 1, 1, Array.from({ length: 100 }, (_, i) => row(i, 20 + (i % 20))));
    await endOfTurn();
    // 20-39 tokens: one length class; 4096 / 39 = 105 rows fit, so all 100 leave together.
    expect(other.jobs[0]!.rows).toHaveLength(100);
  });
});

describe('Batcher: a worker kept for short sentences', () => {
  it('with two workers, long rows take one and a short sentence arriving later gets the other at once', async () => {
    const pool = new FakePool();
    pool.idle = 2;
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 4096, batchWaitMs: 0 });
    const long = b.submit('m', 1, 1, Array.from({ length: 8 }, (_, i) => row(i, 256)));
    await endOfTurn();
    expect(pool.jobs).toHaveLength(1); // not a second long batch on the other worker
    const small = b.submit('m', 1, 1, [row(500, 20)]);
    await endOfTurn();
    expect(pool.jobs).toHaveLength(2);
    expect(pool.jobs[1]!.rows.map((r) => r.ids[0])).toEqual([500]);
    await drainAndCheck(pool, small, long, 8);
  });

  it('with one worker, long rows still run (nothing waits for a second worker)', async () => {
    const pool = new FakePool();
    const b = new Batcher(pool as unknown as WorkerPool, { batchTokens: 4096, batchWaitMs: 0 });
    const long = b.submit('m', 1, 1, Array.from({ length: 8 }, (_, i) => row(i, 256)));
    for (let i = 0; i < 5; i++) {
      await endOfTurn();
      pool.finishAll();
    }
    expect((await long).map((h) => h[0]![0])).toEqual(Array.from({ length: 8 }, (_, i) => i));
  });
});
