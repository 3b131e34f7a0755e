// V8's full collection, for the few places that let go of much memory at once and cannot wait for V8 to time its
// next full collection by the heap's growth (models unloaded for room, a long import). The server is started without
// --expose-gc: the flag is set at run time and the function taken from a new context.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collector: (() => void) | null | undefined;

/** Runs a full collection of this thread's heap; false where V8 refused to expose it. */
export function fullCollection(): boolean {
  if (collector === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc: unknown = runInNewContext('gc');
      collector = typeof gc === 'function' ? (gc as () => void) : null;
    } catch {
      collector = null;
    }
  }
  if (!collector) return false;
  collector();
  return true;
}
