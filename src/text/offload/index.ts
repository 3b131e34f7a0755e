// Planning and assembly of long texts on a worker thread. A 100,000-character HTML string takes the parser, the
// planner and the tag alignment a few hundred milliseconds even in linear time, and on the event loop that is a
// stall of every other request (GET /health included). Texts up to INLINE_CHARS are planned where they are:
// the round trip would cost more than the work, and a request's strings are planned one at a time with a yield
// between them (the service's slices), so many short strings stall nothing either.
import { Worker } from 'node:worker_threads';
import { planHtml } from '../html/index.ts';
import { planText } from '../segment.ts';
import type { DeferredPlan, TranslationPlan } from '../types.ts';
import type { FromTextWorker, PlanOptions, TextFormat, TextJob, ToTextWorker } from './protocol.ts';

/** Texts longer than this (UTF-16 code units) are planned and assembled on the worker. */
export const INLINE_CHARS = 2000;

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);
const INLINE = {
  text: (text: string) => planText(text),
  html: (html: string, options?: PlanOptions) => planHtml(html, options ?? {}),
};

type Pending = { resolve: (msg: FromTextWorker) => void; reject: (err: Error) => void };

export interface OffloadedPlanners {
  text(text: string): TranslationPlan | Promise<DeferredPlan>;
  html(html: string, options?: PlanOptions): TranslationPlan | Promise<DeferredPlan>;
  /** Stops the worker (server close); a later long text starts a new one. */
  close(): Promise<void>;
}

export function offloadedPlanners(): OffloadedPlanners {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (err: Error): void => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  const start = (): Worker => {
    const w = new Worker(ENTRY, { execArgv: [], stdout: false, stderr: false });
    w.unref(); // an idle text worker never keeps the process alive
    w.on('message', (msg: FromTextWorker) => {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (!p) return;
      if ('error' in msg) p.reject(new Error(`text worker: ${msg.error}`));
      else p.resolve(msg);
      if (pending.size === 0) w.unref();
    });
    w.on('error', (err) => failAll(err));
    w.on('exit', () => {
      if (worker === w) worker = undefined;
      failAll(new Error('text worker exited'));
    });
    return w;
  };

  const ask = (msg: TextJob): Promise<FromTextWorker> => {
    worker ??= start();
    const id = nextId++;
    const w = worker;
    w.ref(); // work in flight: the answer is awaited
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      const job: ToTextWorker = { ...msg, id };
      w.postMessage(job);
    });
  };

  const planner = (format: TextFormat) => (text: string, options?: PlanOptions): TranslationPlan | Promise<DeferredPlan> => {
    if (text.length <= INLINE_CHARS) return INLINE[format](text, options);
    const opts = options?.ignoreTags?.length ? { options: { ignoreTags: [...options.ignoreTags] } } : {};
    return ask({ op: 'plan', format, text, ...opts }).then((msg) => ({
      segments: (msg as { segments: string[] }).segments,
      assemble: (translations: string[]) =>
        ask({ op: 'assemble', format, text, ...opts, translations }).then((reply) => (reply as { output: string }).output),
    }));
  };

  // Started now, and made to load its modules with a first small job: a worker's start (and, from the TypeScript
  // sources, its compilation) is seconds on a busy machine, which the first long request must not wait for.
  void ask({ op: 'plan', format: 'html', text: '<p>Ready.</p>' }).catch(() => undefined);

  return {
    text: planner('text'),
    html: planner('html'),
    async close() {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
