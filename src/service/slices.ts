// Work that grows with a request (one detection or plan per string, up to 128 of them) is done in slices: after
// SLICE_MS of it, the loop yields to the event loop so other requests (GET /health among them) are answered in
// between. Each step of such a loop is itself bounded (detection reads at most 2,000 characters of a string;
// long texts are planned on a worker thread), so no slice runs much longer than SLICE_MS.
import { setImmediate as nextTurn } from 'node:timers/promises';

export const SLICE_MS = 10;

export class Slices {
  private since = performance.now();

  /** Yields to the event loop if this slice has run for SLICE_MS or more. */
  async next(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await nextTurn();
    this.since = performance.now();
  }
}
