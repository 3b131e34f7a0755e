// How jobs on one worker take turns (src/engine/pool/turns.ts): each "step" below holds the turn for a few
// milliseconds of real work, as an onnxruntime run does.
import { describe, expect, it } from 'vitest';
import { Turns, type Turn } from '../../src/engine/pool/turns.ts';
import type { Priority } from '../../src/engine/types.ts';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* the run */ }
};

/** A job of `steps` steps of `ms` each; `log` gets its name at every step it runs. */
async function job(turns: Turns, turn: Turn, name: string, steps: number, log: string[], ms = 2): Promise<void> {
  try {
    for (let s = 0; s < steps; s++) {
      await turns.take(turn);
      log.push(name);
      busy(ms);
      await new Promise((r) => setImmediate(r)); // the run's answer comes back in a later turn of the event loop
    }
  } finally {
    turns.leave(turn);
  }
}

const settings = (scheduling: 'priority' | 'fifo', bulkShare = 0) => ({ scheduling, bulkShare, yieldMs: 100, interactiveBudgetMs: 2000 });

describe('turns on one worker', () => {
  it('priority: an interactive job arriving during a bulk one runs at the bulk job\'s next step, and the bulk job resumes after it', async () => {
    const turns = new Turns(settings('priority'));
    const log: string[] = [];
    const bulk = job(turns, turns.join('bulk'), 'b', 10, log);
    while (log.length < 3) await new Promise((r) => setImmediate(r));
    await Promise.all([bulk, job(turns, turns.join('interactive'), 'i', 4, log)]);
    expect(log.join('')).toBe('bbbiiiibbbbbbb');
  });

  it('priority: a bulk job takes no further step while an interactive job is sent to the worker and not yet read', async () => {
    let sent = 0;
    const turns = new Turns(settings('priority'), () => sent);
    const log: string[] = [];
    const bulk = job(turns, turns.join('bulk'), 'b', 10, log);
    while (log.length < 3) await new Promise((r) => setImmediate(r));
    sent = 1; // the pool posted it; the worker reads the message some turns of the event loop later
    await new Promise((r) => setTimeout(r, 50));
    const at = log.length;
    await Promise.all([bulk, job(turns, turns.join('interactive'), 'i', 4, log)]);
    expect(log.slice(at, at + 4).join('')).toBe('iiii');
    expect(log.join('')).toMatch(/^b{3,4}iiiib+$/);
  });

  it('priority: a bulk job waits for an interactive job that never arrives no longer than a quarter second', async () => {
    const turns = new Turns(settings('priority'), () => 1);
    const log: string[] = [];
    const t0 = performance.now();
    await job(turns, turns.join('bulk'), 'b', 5, log);
    expect(log.join('')).toBe('bbbbb');
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it('priority: an interactive job demoted past its budget goes round with the bulk job and gives way to a new interactive one', async () => {
    const turns = new Turns(settings('priority'));
    const log: string[] = [];
    const bulk = job(turns, turns.join('bulk'), 'b', 6, log);
    while (log.length < 1) await new Promise((r) => setImmediate(r));
    const longTurn = turns.join('interactive');
    const long = job(turns, longTurn, 'L', 6, log);
    while (log.length < 3) await new Promise((r) => setImmediate(r));
    turns.demote(longTurn);
    while (log.length < 6) await new Promise((r) => setImmediate(r));
    await Promise.all([bulk, long, job(turns, turns.join('interactive'), 's', 2, log)]);
    // b, then L as interactive; demoted, L and b alternate; the new short job passes both.
    expect(log.join('')).toMatch(/^bLL(bL|Lb)+/);
    expect(log.join('')).toMatch(/ss/);
    expect(log.lastIndexOf('s')).toBeLessThan(log.length - 2);
  });

  it('fifo: the job that came first runs to its end', async () => {
    const turns = new Turns(settings('fifo'));
    const log: string[] = [];
    const bulk = job(turns, turns.join('bulk'), 'b', 10, log);
    while (log.length < 3) await new Promise((r) => setImmediate(r));
    await Promise.all([bulk, job(turns, turns.join('interactive'), 'i', 4, log)]);
    expect(log.join('')).toBe('bbbbbbbbbbiiii');
  });

  for (const share of [0, 0.3]) {
    it(`a flood of interactive jobs leaves bulk work ${share ? 'at least its share' : 'nothing'} (DRAGOMAN_BULK_SHARE ${share * 100})`, async () => {
      const turns = new Turns(settings('priority', share));
      const log: string[] = [];
      let flooding = true;
      const flood = (async () => {
        // One interactive job after the other, each arriving while the last still runs: interactive work always waits.
        let next: Promise<void> = job(turns, turns.join('interactive'), 'i', 5, log);
        while (flooding) {
          const later = job(turns, turns.join('interactive' as Priority), 'i', 5, log);
          await next;
          next = later;
        }
        await next;
      })();
      while (log.length < 5) await new Promise((r) => setImmediate(r));
      const bulk = job(turns, turns.join('bulk'), 'b', 1000, log);
      while (log.length < 300) await new Promise((r) => setImmediate(r));
      flooding = false;
      await flood;
      const during = log.slice(0, 300);
      const bulkShare = during.filter((n) => n === 'b').length / during.length;
      if (share === 0) expect(bulkShare).toBe(0);
      else expect(bulkShare).toBeGreaterThan(0.2);
      await bulk;
    }, 60_000);
  }
});
