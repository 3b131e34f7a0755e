// A short-lived thread preparing one decoder (prepare.ts) or one decoder-only graph (prepare-causal.ts) and handing
// the result over.
import { parentPort, workerData } from 'node:worker_threads';
import { prepareCausal, type CausalPrepareRequest } from './prepare-causal.ts';
import { prepareDecoder, type PrepareRequest } from './prepare.ts';

const { req } = workerData as { req: PrepareRequest | CausalPrepareRequest };
try {
  if ('modelPath' in req) {
    const prepared = prepareCausal(req);
    parentPort!.postMessage({ prepared }, prepared.kind === 'last-position' && typeof prepared.model !== 'string' ? [prepared.model.buffer as ArrayBuffer] : []);
  } else {
    const prepared = await prepareDecoder(req);
    const moved = prepared.kind === 'split' ? [prepared.crossKv, prepared.model].filter((b): b is Uint8Array => typeof b !== 'string') : [];
    parentPort!.postMessage({ prepared }, moved.map((b) => b.buffer as ArrayBuffer));
  }
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message });
}
