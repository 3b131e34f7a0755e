// A short-lived thread preparing one decoder (prepare.ts) and handing the result over.
import { parentPort, workerData } from 'node:worker_threads';
import { prepareDecoder, type PrepareRequest } from './prepare.ts';

const { req } = workerData as { req: PrepareRequest };
try {
  const prepared = await prepareDecoder(req);
  const moved = prepared.kind === 'split' ? [prepared.crossKv, prepared.model].filter((b): b is Uint8Array => typeof b !== 'string') : [];
  parentPort!.postMessage({ prepared }, moved.map((b) => b.buffer as ArrayBuffer));
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message });
}
