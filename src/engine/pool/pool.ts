// N worker threads, each a full replica of every loaded model (CTranslate2's replica pool). First come, first served:
// one job per worker at a time. With priorities (DRAGOMAN_SCHEDULING=priority) a worker holds up to one job of each
// priority, which take turns between decoder steps (turns.ts). The batcher decides what the next job is. A worker
// that dies fails only the jobs it held and is replaced (the replacement loads the models loaded at that moment).
// Models are loaded and unloaded in every worker at once (load/unload), by translate/resident-models.ts.
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import { EngineUnavailable, WorkerDied } from '../errors.ts';
import type { FromWorker, PreparedModelSpec, ToWorker } from './protocol.ts';
import type { GenerationJob } from '../search/types.ts';
import type { SessionSettings } from '../settings.ts';
import type { LoadedRuntime, Priority } from '../types.ts';

interface Pending {
  id: number;
  job: GenerationJob;
  /** The place it holds on its worker: its priority, or bulk once an interactive job is past its budget. */
  place: Priority;
  resolve: (hypotheses: number[][][]) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Models loaded; the slot takes jobs once all its models answered. */
  ready: boolean;
  /** The worker said 'ready': later loads and unloads are sent to it (before that, it loads what is loaded then). */
  started: boolean;
  /** Jobs on the worker: at most one, or with priorities one of each place (a demoted interactive job holds the bulk one). */
  jobs: Pending[];
  /** Interactive jobs sent to the worker, in memory the worker reads (protocol.ts's init). */
  sent: Int32Array;
  /** Loads and unloads sent to this worker by load()/unload(), waiting for its answer, by model name. */
  loads: Map<string, (report: LoadReport | undefined) => void>;
  unloads: Map<string, () => void>;
}

export interface LoadReport {
  name: string;
  ok: boolean;
  ms: number;
  /** How it runs (when loaded). */
  runtime?: LoadedRuntime;
  message?: string;
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

/** How long after a replacement worker failed to load its models the next one is tried. */
const LOAD_RETRY_MS = 5_000;

export class WorkerPool extends EventEmitter {
  private readonly slots: Slot[] = [];
  private specs: PreparedModelSpec[] = [];
  private nextId = 1;
  private closed = false;
  restarts = 0;
  /**
   * Why replacement workers cannot load the models (the folder was moved or damaged after start), while that lasts;
   * with no worker ready, requests fail at once (EngineUnavailable) instead of waiting for a worker that cannot come.
   */
  loadFailure: string | undefined;

  constructor(private readonly size: number, private readonly settings: SessionSettings) {
    super();
  }

  /** Starts the workers and loads every model in each; resolves with the first worker's load report per model. */
  async start(specs: PreparedModelSpec[]): Promise<LoadReport[]> {
    this.specs = specs;
    const reports = await Promise.all(Array.from({ length: this.size }, () => this.spawn(true)));
    // A model that fails in one worker fails in all (same files): keep only those that loaded everywhere.
    const failed = new Set(reports.flat().filter((r) => !r.ok).map((r) => r.name));
    this.specs = specs.filter((s) => !failed.has(s.name));
    return reports[0] ?? [];
  }

  private spawn(initial = false): Promise<LoadReport[]> {
    const spawnedAt = Date.now();
    const worker = new Worker(ENTRY, { execArgv: [], stdout: false, stderr: false });
    const slot: Slot = {
      worker, ready: false, started: false, jobs: [], sent: new Int32Array(new SharedArrayBuffer(4)), loads: new Map(), unloads: new Map(),
    };
    this.slots.push(slot);
    const reports: LoadReport[] = [];
    let loadFailed = false;
    /** What this worker loads when it starts: the models loaded in the pool at that moment. */
    let initialSpecs: PreparedModelSpec[] = [];
    return new Promise((resolveLoad) => {
      const finishLoad = () => {
        if (slot.ready || reports.length < initialSpecs.length) return;
        const failed = reports.filter((r) => !r.ok);
        if (!initial && failed.length > 0) {
          // A replacement that cannot load what the others serve must not count as a worker: it would take jobs it
          // can only fail, and /ready would call it alive. It is retired and tried again a little later.
          loadFailed = true;
          this.loadFailure = failed.map((r) => `${r.name}: ${r.message ?? 'not loaded'}`).join('; ');
          this.emit('workerLoadFailed', this.loadFailure);
          resolveLoad(reports);
          if (this.alive() === 0) this.emit('unavailable');
          this.post(slot, { type: 'exit' });
          return;
        }
        slot.ready = true;
        if (!initial) this.loadFailure = undefined;
        resolveLoad(reports);
        this.emit('idle');
      };
      worker.on('message', (msg: FromWorker) => {
        switch (msg.type) {
          case 'ready':
            slot.started = true;
            initialSpecs = [...this.specs];
            for (const model of initialSpecs) this.post(slot, { type: 'load', model });
            finishLoad();
            break;
          case 'loaded':
          case 'loadFailed': {
            const report: LoadReport = msg.type === 'loaded'
              ? { name: msg.name, ok: true, ms: msg.ms, runtime: msg.runtime }
              : { name: msg.name, ok: false, ms: 0, message: msg.message };
            const waiter = slot.loads.get(msg.name);
            if (waiter) {
              slot.loads.delete(msg.name);
              waiter(report);
            } else {
              reports.push(report);
              finishLoad();
            }
            break;
          }
          case 'unloaded':
            slot.unloads.get(msg.name)?.();
            slot.unloads.delete(msg.name);
            break;
          case 'demoted': {
            const p = slot.jobs.find((j) => j.id === msg.id);
            if (!p) return;
            p.place = 'bulk';
            this.emit('idle');
            break;
          }
          case 'spinning':
            this.emit('spinning', { spinning: msg.spinning, othersCores: msg.othersCores, worker: worker.threadId });
            break;
          case 'result':
          case 'failed': {
            const p = slot.jobs.find((j) => j.id === msg.id);
            if (!p) return;
            slot.jobs = slot.jobs.filter((j) => j !== p);
            if (msg.type === 'result') p.resolve(msg.hypotheses);
            // onnxruntime's words are for the log (the HTTP layer logs the error and answers a plain 500).
            else p.reject(new Error(`Translation failed in the engine: ${msg.message}`));
            this.emit('idle');
            break;
          }
        }
      });
      worker.on('error', (err) => this.emit('workerError', err));
      worker.on('exit', () => {
        const i = this.slots.indexOf(slot);
        if (i >= 0) this.slots.splice(i, 1);
        if (!slot.ready) resolveLoad(reports);
        // Loads and unloads it had not answered: a worker that is gone holds no model.
        for (const waiter of slot.loads.values()) waiter(undefined);
        for (const waiter of slot.unloads.values()) waiter();
        slot.loads.clear();
        slot.unloads.clear();
        const held = slot.jobs;
        slot.jobs = [];
        if (this.closed) {
          for (const p of held) p.reject(new EngineUnavailable('shuttingDown'));
          return;
        }
        for (const p of held) p.reject(new WorkerDied());
        if (!loadFailed) {
          this.restarts++;
          this.emit('workerExit');
        }
        // A worker that keeps dying (out of memory, ...) or cannot load is not respawned in a tight loop.
        const delay = loadFailed ? LOAD_RETRY_MS : Date.now() - spawnedAt < 10_000 && this.restarts > 3 ? 2_000 : 0;
        setTimeout(() => {
          if (!this.closed) void this.spawn();
        }, delay).unref();
      });
      this.post(slot, { type: 'init', settings: this.settings, sent: slot.sent.buffer as SharedArrayBuffer });
    });
  }

  /**
   * Loads a model in every worker (each after the job it runs); workers started later load it too. Resolves with the
   * slowest worker's report, or the first failure (the model is then unloaded from the workers where it loaded).
   */
  async load(spec: PreparedModelSpec): Promise<LoadReport> {
    this.specs = [...this.specs.filter((s) => s.name !== spec.name), spec];
    const started = this.slots.filter((s) => s.started);
    const reports = (await Promise.all(started.map((slot) => new Promise<LoadReport | undefined>((resolve) => {
      slot.loads.set(spec.name, resolve);
      this.post(slot, { type: 'load', model: spec });
    })))).filter((r): r is LoadReport => r !== undefined);
    const failed = reports.find((r) => !r.ok);
    if (failed) {
      await this.unload(spec.name);
      return failed;
    }
    const slowest = reports.reduce<LoadReport | undefined>((a, r) => (!a || r.ms > a.ms ? r : a), undefined);
    return slowest ?? { name: spec.name, ok: true, ms: 0 };
  }

  /** Closes a model's sessions in every worker (each after the job it runs); workers started later do not load it. */
  async unload(name: string): Promise<void> {
    this.specs = this.specs.filter((s) => s.name !== name);
    await Promise.all(this.slots.filter((s) => s.started).map((slot) => new Promise<void>((resolve) => {
      slot.unloads.set(name, resolve);
      this.post(slot, { type: 'unload', name });
    })));
  }

  private post(slot: Slot, msg: ToWorker): void {
    slot.worker.postMessage(msg);
  }

  idleCount(): number {
    return this.slots.filter((s) => s.ready && !s.jobs.length).length;
  }

  private get priorities(): boolean {
    return this.settings.turns?.scheduling === 'priority';
  }

  /** Whether the slot can take a job of this priority now: idle, or with priorities, holding none of it. */
  private takes(slot: Slot, priority: Priority): boolean {
    if (!slot.ready) return false;
    if (!this.priorities) return !slot.jobs.length;
    // Bulk work waits for the bulk place; a demoted interactive job holds it too (its new batch goes elsewhere or after).
    return !slot.jobs.some((j) => j.place === priority);
  }

  /** Workers that can take a job of this priority now. */
  freeFor(priority: Priority): number {
    return this.slots.filter((s) => this.takes(s, priority)).length;
  }

  alive(): number {
    return this.slots.filter((s) => s.ready).length;
  }

  busyCount(): number {
    return this.slots.filter((s) => s.jobs.length).length;
  }

  /** Workers running a job of this priority (undefined: of any). */
  busyWith(priority: Priority | undefined): number {
    if (priority === undefined) return this.busyCount();
    return this.slots.filter((s) => s.jobs.some((j) => j.place === priority)).length;
  }

  /** Runs a job on a worker that can take it, an idle one first; the caller (batcher) checks freeFor() first. */
  run(job: GenerationJob): Promise<number[][][]> {
    const priority = job.priority ?? 'interactive';
    const slot = this.slots.filter((s) => this.takes(s, priority)).sort((a, b) => a.jobs.length - b.jobs.length)[0];
    if (!slot) return Promise.reject(new EngineUnavailable('noWorker'));
    return new Promise((resolve, reject) => {
      const pending: Pending = { id: this.nextId++, job, place: priority, resolve, reject };
      slot.jobs.push(pending);
      if (this.priorities && priority === 'interactive') Atomics.add(slot.sent, 0, 1);
      this.post(slot, { type: 'run', id: pending.id, job });
    });
  }

  /** Test hook: make a busy worker (else any) die as if onnxruntime crashed. */
  crashOne(): void {
    const slot = this.slots.find((s) => s.jobs.length) ?? this.slots[0];
    if (slot) this.post(slot, { type: 'crash' });
  }

  /** Asks every worker to leave between two decoder steps and waits for them (never terminate() mid-run). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots].map((s) => {
      const exited = new Promise<void>((resolve) => s.worker.once('exit', () => resolve()));
      this.post(s, { type: 'exit' });
      return exited;
    }));
    this.slots.length = 0;
  }
}
