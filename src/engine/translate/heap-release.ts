// A model unloaded for room leaves its tokenizer in the main thread's V8 heap (about 20 times its tokenizer.json) until
// V8's next full collection, which V8 times by the heap's growth, not by what the budget allows: with models taking
// turns many times a minute, dead tokenizers and the graph bytes read for their loads pile up to hundreds of megabytes
// beside DRAGOMAN_MODEL_MEMORY. Once the unloads since the last collection have let go of more than a threshold, one
// full collection is run, inside the load that made room (its time is the load's).
import { fullCollection } from '../../config/full-collection.ts';

export class HeapRelease {
  private released = 0;
  collections = 0;

  constructor(private readonly thresholdBytes: number) {}

  /** An unload let go of `bytes` of main-thread heap; collects once enough has been let go since the last time. */
  note(bytes: number): void {
    this.released += bytes;
    if (this.released < this.thresholdBytes) return;
    this.released = 0;
    if (fullCollection()) this.collections++;
  }
}
