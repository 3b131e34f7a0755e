// The document worker thread: one job at a time from the pool (pool.ts), under the pool's memory and time limits.
import { parentPort } from 'node:worker_threads';
import { DocumentError } from '../formats/index.ts';
import { tableTransfer } from '../segment-table.ts';
import type { FromDocumentWorker, ToDocumentWorker } from './protocol.ts';
import { planDocument, writeDocument } from './tasks.ts';

const port = parentPort!;

port.on('message', (msg: ToDocumentWorker) => {
  void (async () => {
    let reply: FromDocumentWorker;
    let transfer: ArrayBuffer[] = [];
    try {
      if (msg.op === 'plan') {
        const planned = await planDocument(msg.bytes, msg.filename, msg.limits, msg.charactersLeft);
        reply = { id: msg.id, planned };
        if ('segments' in planned) transfer = tableTransfer(planned.segments);
      } else {
        const written = ownBuffer(await writeDocument(msg.bytes, msg.format, msg.limits, msg.translations, msg.target));
        reply = { id: msg.id, written };
        transfer = [written.buffer as ArrayBuffer];
      }
    } catch (err) {
      const refusal = err instanceof DocumentError;
      // A parser's own exception on a damaged file is the file's problem too, but its message may quote content.
      reply = { id: msg.id, error: refusal ? err.message : err instanceof Error ? err.message : String(err), refusal };
    }
    try {
      port.postMessage(reply, transfer);
    } catch (err) {
      // A reply that cannot be sent is this job's failure, said at once, not a job left to its time limit.
      port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err), refusal: false });
    }
  })();
});

port.postMessage({ ready: true } satisfies FromDocumentWorker);

/**
 * `bytes` on an ArrayBuffer of its own, so that moving it moves nothing else: a small Buffer is a view into Node's
 * shared pool, which Node 22 and later refuse to transfer (and which Node 20 would hand over whole).
 */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}
