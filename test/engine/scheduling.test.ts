// Priorities on one worker, with the tiny Marian model: an interactive request overtakes bulk work, the batch running
// on the worker as well as those queued, and the bulk work comes out exactly as it does first come, first served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchEvent, DragomanEngine } from '../../src/engine/index.ts';
import type { Priority } from '../../src/engine/types.ts';
import { engineOver, oneModelDir, readDev, type MarianDevRow } from './helpers.ts';

const dev = readDev<MarianDevRow>('tiny-marian-en-de');
const bulkText = dev.map((d) => d.src);
/** A sentence of its own, not among the bulk ones (the engine would share a sentence in flight). */
const lone = 'The children were playing in the garden until the rain started.';

async function until(check: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 2));
  }
}

interface Overtaking {
  /** Bulk batches finished when the interactive request was answered. */
  bulkBatchesBefore: number;
  bulkBatches: number;
  interactive: string[];
  bulk: string[];
}

/** A bulk request of 500 sentences; once its first batch is on the worker, a one-sentence interactive request. */
async function overtake(engine: DragomanEngine, beams: number): Promise<Overtaking> {
  const finished: Priority[] = [];
  const onBatch = (e: BatchEvent) => finished.push(e.priority);
  engine.events.on('batch', onBatch);
  try {
    const bulk = engine.translate(bulkText, 'eng_Latn', 'deu_Latn', { beams, priority: 'bulk' });
    await until(() => engine.stats().queued.bulk > 0 && engine.stats().queued.bulk < bulkText.length);
    const interactive = await engine.translate([lone], 'eng_Latn', 'deu_Latn', { beams });
    const bulkBatchesBefore = finished.filter((p) => p === 'bulk').length;
    const bulkDone = await bulk;
    return {
      bulkBatchesBefore, bulkBatches: finished.filter((p) => p === 'bulk').length, interactive: interactive.translations, bulk: bulkDone.translations,
    };
  } finally {
    engine.events.off('batch', onBatch);
  }
}

const ENV = { DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1', DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_PRECISION: 'int8' };

describe('scheduling on one worker (tiny-marian-en-de, int8)', () => {
  let fifo: DragomanEngine;
  let priority: DragomanEngine;
  let budgeted: DragomanEngine;
  beforeAll(async () => {
    // The one model these tests translate with, alone in its folder: each engine loads one model, not three.
    const models = oneModelDir('tiny-marian-en-de');
    fifo = await engineOver(models, { ...ENV, DRAGOMAN_SCHEDULING: 'fifo' });
    // Bulk runs cut to the fewest steps (2): the most turns, and the most Loop runs a batch is cut into.
    priority = await engineOver(models, { ...ENV, DRAGOMAN_SCHEDULING: 'priority', DRAGOMAN_YIELD_MS: '1' });
    // Every interactive batch past its budget after its first run.
    budgeted = await engineOver(models, { ...ENV, DRAGOMAN_SCHEDULING: 'priority', DRAGOMAN_INTERACTIVE_BUDGET_MS: '1' });
  }, 120_000);
  afterAll(async () => {
    await fifo?.close();
    await priority?.close();
    await budgeted?.close();
  });

  /** The bulk text translated first come, first served with nothing else waiting: made once per beam width. */
  const aloneByBeams = new Map<number, Promise<string[]>>();
  const bulkAloneOf = (beams: number): Promise<string[]> => {
    if (!aloneByBeams.has(beams)) {
      aloneByBeams.set(beams, fifo.translate(bulkText, 'eng_Latn', 'deu_Latn', { beams, priority: 'bulk' }).then((r) => r.translations));
    }
    return aloneByBeams.get(beams)!;
  };

  for (const beams of [1, 4]) {
    it(`beam ${beams}: bulk work cut into short runs decodes exactly as in one go`, async () => {
      const alone = await bulkAloneOf(beams);
      const cut = await priority.translate(bulkText, 'eng_Latn', 'deu_Latn', { beams, priority: 'bulk' });
      expect(cut.translations).toEqual(alone);
    }, 300_000);

    it(`beam ${beams}: an interactive request overtakes the bulk batch on the worker and those queued; first come, first served it waits`, async () => {
      const reference = (await fifo.translate([lone], 'eng_Latn', 'deu_Latn', { beams })).translations;
      const bulkAlone = await bulkAloneOf(beams);

      const first = await overtake(fifo, beams);
      // First come, first served: the batch on the worker runs to its end before the request's row leaves.
      expect(first.bulkBatchesBefore).toBeGreaterThanOrEqual(1);

      const prio = await overtake(priority, beams);
      expect(prio.bulkBatches).toBeGreaterThan(2);
      expect(prio.bulkBatchesBefore).toBe(0);
      // Its own batch, nothing of the bulk work mixed in: the same output as alone, and the bulk's as alone too.
      expect(prio.interactive).toEqual(reference);
      expect(prio.bulk).toEqual(bulkAlone);
    }, 300_000);
  }

  it('an interactive batch past DRAGOMAN_INTERACTIVE_BUDGET_MS gives way: a one-sentence request sent meanwhile is answered first', async () => {
    const reference = (await fifo.translate([lone], 'eng_Latn', 'deu_Latn', { beams: 4 })).translations;
    // Sent before the one-sentence request is, so that one cannot join its batches.
    const longText = bulkText.slice(0, 32);
    const longAlone = (await fifo.translate(longText, 'eng_Latn', 'deu_Latn', { beams: 4 })).translations;
    const order: string[] = [];
    const long = budgeted.translate(longText, 'eng_Latn', 'deu_Latn', { beams: 4 }).then((r) => {
      order.push('long');
      return r.translations;
    });
    const sizes: number[] = [];
    const onBatch = (e: BatchEvent) => sizes.push(e.rows);
    budgeted.events.on('batch', onBatch);
    // The long batch leaves once its sentences are tokenized, at the end of that turn: well within 100 ms.
    await new Promise((r) => setTimeout(r, 100));
    const short = await budgeted.translate([lone], 'eng_Latn', 'deu_Latn', { beams: 4 });
    order.push('short');
    expect(await long).toEqual(longAlone);
    budgeted.events.off('batch', onBatch);
    // The short request's batch is answered first, before any of the long request's.
    expect(sizes[0]).toBe(1);
    expect(sizes.slice(1).reduce((a, b) => a + b)).toBe(longText.length);
    expect(order).toEqual(['short', 'long']);
    expect(short.translations).toEqual(reference);
  }, 300_000);

  it('counts waiting sentences per priority', async () => {
    const bulk = priority.translate(bulkText.slice(0, 200), 'eng_Latn', 'deu_Latn', { beams: 4, priority: 'bulk' });
    await until(() => priority.stats().queued.bulk > 0);
    expect(priority.stats().queued.interactive).toBe(0);
    await bulk;
    expect(priority.stats().queued).toEqual({ interactive: 0, bulk: 0 });
  }, 120_000);
});
