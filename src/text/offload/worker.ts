// The text worker: plans and assembles long texts (HTML above all) away from the event loop that answers requests.
import { parentPort } from 'node:worker_threads';
import { planHtml } from '../html/index.ts';
import { planText } from '../segment.ts';
import type { FromTextWorker, ToTextWorker } from './protocol.ts';


parentPort!.on('message', (msg: ToTextWorker) => {
  let reply: FromTextWorker;
  try {
    const plan = msg.format === 'html' ? planHtml(msg.text, msg.options ?? {}) : planText(msg.text);
    reply = msg.op === 'plan' ? { id: msg.id, segments: plan.segments } : { id: msg.id, output: plan.assemble(msg.translations) };
  } catch (err) {
    reply = { id: msg.id, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
