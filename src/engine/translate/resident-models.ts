// Which installed models are loaded in the workers, within DRAGOMAN_MODEL_MEMORY. A request uses a model through use():
// an unloaded model is loaded first (concurrent requests wait for the same load), and while the models loaded and
// being loaded would pass the budget, the least recently used one that no request holds and DRAGOMAN_PRELOAD does not
// name is unloaded. The catalog of installed models changes while serving (replace): a removed model is unloaded once
// the requests holding it are done; requests still waiting for it fail with ModelUnavailable('removed').
import type { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ModelTooLarge, ModelUnavailable } from '../errors.ts';
import type { ModelLoad } from './model-load.ts';
import type { LoadedModel } from './hop.ts';
import type { ModelFolder } from '../model/model-folder.ts';
import { runtimeFiles } from '../model/runtime-files.ts';
import { HeapRelease } from './heap-release.ts';

/**
 * What one worker's copy of a model takes: a fixed part (its onnxruntime sessions, their arenas and the search's
 * buffers, whatever the model's size) plus, per byte of its two ONNX files, the weights as onnxruntime holds them and the
 * prepared decoder graphs. Measured on the fixture models (docs/models.md, "Memory budget").
 */
export const MODEL_FIXED_BYTES = 8 * 2 ** 20;
export const MEMORY_PER_ONNX_BYTE = 1.5;

/**
 * What a model's tokenizer takes in the main thread's V8 heap per byte of its tokenizer.json (one copy, whatever the
 * workers): measured after a full collection at 11 to 20 times the file on OPUS-MT, NLLB-200 and Qwen3 tokenizers
 * (docs/models.md, "Memory budget"); the upper end is taken.
 */
export const TOKENIZER_HEAP_PER_BYTE = 20;

/**
 * Unloads let go of at most this much main-thread heap (tokenizers) between two full collections: an eighth of the
 * budget, within 4 to 32 MiB (a collection of a heap of a few hundred megabytes takes tens of milliseconds).
 */
export function releaseBytes(budget: number | undefined): number {
  return Math.min(32 * 2 ** 20, Math.max(4 * 2 ** 20, (budget ?? Infinity) / 8));
}

/** The main thread's part of a model's estimate: its tokenizer. */
export function tokenizerCost(folder: ModelFolder): number {
  const size = statSync(join(folder.info.path, 'tokenizer.json'), { throwIfNoEntry: false })?.size ?? 0;
  return size * TOKENIZER_HEAP_PER_BYTE;
}

/** The estimate of what a model takes in the whole process: every worker holds a copy, the main thread its tokenizer. */
export function modelCost(folder: ModelFolder, workers: number): number {
  const spec = folder.runtime;
  if (!spec) return 0;
  // a graph's external weights (model.onnx_data) count as much as the graph
  const bytes = runtimeFiles(spec).reduce((sum, f) => sum + statSync(f.path).size + (statSync(`${f.path}_data`, { throwIfNoEntry: false })?.size ?? 0), 0);
  return Math.ceil(MODEL_FIXED_BYTES + bytes * MEMORY_PER_ONNX_BYTE) * workers + tokenizerCost(folder);
}

/** How often at most the order of use is written (models-recent.json). */
const RECENT_WRITE_MS = 5_000;

function readRecent(file: string | undefined): string[] {
  if (!file) return [];
  try {
    const names: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return []; // first start, or a damaged file: by name
  }
}

interface Entry {
  folder: ModelFolder;
  cost: number;
  /** The tokenizer's part of `cost`: what an unload lets go of in the main thread's heap. */
  tokenizerBytes: number;
  loaded?: LoadedModel;
  /** The load under way: every request for the model awaits this one. */
  loading?: Promise<LoadedModel>;
  /** Counted in the budget: loaded, or room taken for a load under way. */
  resident: boolean;
  /** Requests holding the model (use() under way): never unloaded meanwhile. */
  holders: number;
  lastUsed: number;
  /** Named by DRAGOMAN_PRELOAD: loaded at start, never unloaded for room. */
  kept: boolean;
  removed: boolean;
}

/** One installed model as the budget sees it now. */
export interface ResidentModel {
  /** What it counts for in DRAGOMAN_MODEL_MEMORY now (its estimate while loaded or being loaded, else 0). */
  memoryBytes: number;
  /** Requests that used it since start (each hop of a route counts for its model), across unloads and reloads. */
  requests: number;
}

export interface ResidentStats {
  installed: number;
  loaded: number;
  loads: number;
  evictions: number;
  /** Full collections of the main thread's heap run after unloads (heap-release.ts). */
  collections: number;
  loadSeconds: number;
  residentBytes: number;
  budgetBytes: number | undefined;
}

export interface ResidentOptions {
  /** DRAGOMAN_MODEL_MEMORY in bytes; undefined = no limit. */
  budget: number | undefined;
  /** DRAGOMAN_PRELOAD; undefined = the models that fit, the most recently used first (then by name). */
  preload: readonly string[] | undefined;
  /** Where the order of use is kept across restarts (a JSON list of names, most recent first); undefined = not kept. */
  recentFile?: string;
  workers: number;
  /** Reads what a load needs outside the workers (tokenizer, prepared graphs); the function it returns opens the sessions. */
  prepare: (folder: ModelFolder) => Promise<() => Promise<ModelLoad>>;
  unload: (name: string) => Promise<void>;
  /** Gets 'modelLoaded' ({name, ms, threads}), 'modelUnloaded' ({name, reason}) and 'modelLoadFailed' ({name, problem}). */
  events: EventEmitter;
}

export class ResidentModels {
  private readonly entries = new Map<string, Entry>();
  /** Loads waiting for memory that requests hold: woken whenever a request lets go or a model is unloaded. */
  private waiters: (() => void)[] = [];
  private clock = 0;
  /** Removed models still loaded (or loading) because requests hold them: still in the budget. */
  private readonly gone = new Set<Entry>();
  /** Bytes of models being unloaded (still in the workers until they answer). */
  private leaving = 0;
  private loads = 0;
  private evictions = 0;
  private loadSeconds = 0;
  /** Requests per model name since start: kept when a model is unloaded, removed or installed again. */
  private readonly served = new Map<string, number>();
  private readonly heap: HeapRelease;

  constructor(private readonly options: ResidentOptions) {
    this.heap = new HeapRelease(releaseBytes(options.budget));
  }

  /** The installed models, in catalog order. */
  folders(): ModelFolder[] {
    return [...this.entries.values()].map((e) => e.folder);
  }

  /** Installed models a route may use (status ok: not found broken when loading). */
  usable(): ModelFolder[] {
    return this.folders().filter((f) => f.info.status === 'ok' && f.runtime);
  }

  isLoaded(name: string): boolean {
    return this.entries.get(name)?.loaded !== undefined;
  }

  /** Its memory in the budget and the requests it served; undefined for a name not installed. */
  model(name: string): ResidentModel | undefined {
    const e = this.entries.get(name);
    if (!e) return undefined;
    return { memoryBytes: e.resident ? e.cost : 0, requests: this.served.get(name) ?? 0 };
  }

  stats(): ResidentStats {
    return {
      installed: this.entries.size,
      loaded: [...this.entries.values()].filter((e) => e.loaded).length,
      loads: this.loads,
      evictions: this.evictions,
      collections: this.heap.collections,
      loadSeconds: this.loadSeconds,
      residentBytes: this.residentBytes(),
      budgetBytes: this.options.budget,
    };
  }

  /**
   * Sets the installed models (the folders scanned now); folders whose files changed count as removed and added again.
   * New models are only registered; removed ones are unloaded once no request holds them.
   */
  replace(folders: readonly ModelFolder[]): { added: string[]; removed: string[] } {
    const added: string[] = [];
    const removed: string[] = [];
    const next = new Map(folders.map((f) => [f.info.name, f]));
    for (const [name, e] of this.entries) {
      const f = next.get(name);
      if (f && sameFiles(f, e.folder)) continue;
      this.entries.delete(name);
      e.removed = true;
      if (e.resident) this.gone.add(e);
      removed.push(name);
      this.release(e);
    }
    for (const f of folders) {
      if (this.entries.has(f.info.name)) continue;
      const usable = f.info.status === 'ok' && f.runtime !== undefined;
      this.entries.set(f.info.name, {
        folder: f, cost: usable ? modelCost(f, this.options.workers) : 0, tokenizerBytes: usable ? tokenizerCost(f) : 0,
        resident: false, holders: 0, lastUsed: 0,
        kept: this.options.preload?.includes(f.info.name) ?? false, removed: false,
      });
      added.push(f.info.name);
    }
    this.wake();
    return { added, removed };
  }

  /**
   * Loads the models DRAGOMAN_PRELOAD names, or without it those that fit in the budget in catalog order. A model that
   * fails is marked corrupt (its problem names the file) and the others are loaded.
   */
  async preload(): Promise<void> {
    const { preload, budget } = this.options;
    let room = budget ?? Infinity;
    const recent = readRecent(this.options.recentFile);
    const rank = (e: Entry) => {
      const i = recent.indexOf(e.folder.info.name);
      return i < 0 ? recent.length : i;
    };
    const order = [...this.entries.values()].sort((a, b) => rank(a) - rank(b));
    for (const e of order) {
      if (e.folder.info.status !== 'ok' || !e.folder.runtime) continue;
      if (preload ? !e.kept : e.cost > room) continue;
      room -= e.cost;
      await this.ensure(e).catch(() => undefined); // marked corrupt or too large; logged by the 'modelLoadFailed' event
    }
  }

  /** Runs `work` with the model loaded, holding it (no eviction, no unload) until work settles. */
  async use<T>(name: string, work: (model: LoadedModel) => Promise<T>): Promise<T> {
    const e = this.entries.get(name);
    if (!e || e.removed) throw new ModelUnavailable(name, 'removed');
    e.holders++;
    try {
      const model = await this.ensure(e);
      e.lastUsed = ++this.clock;
      this.served.set(name, (this.served.get(name) ?? 0) + 1);
      this.noteUse();
      return await work(model);
    } finally {
      e.holders--;
      e.lastUsed = ++this.clock;
      this.release(e);
    }
  }

  private ensure(e: Entry): Promise<LoadedModel> {
    if (e.loaded) return Promise.resolve(e.loaded);
    e.loading ??= this.load(e).finally(() => {
      e.loading = undefined;
    });
    return e.loading;
  }

  private async load(e: Entry): Promise<LoadedModel> {
    const { name } = e.folder.info;
    const { budget } = this.options;
    if (budget !== undefined) {
      // Kept models are never unloaded: what they take is not there for any other model, ever.
      let room = budget;
      for (const k of this.entries.values()) if (k !== e && k.kept && k.resident) room -= k.cost;
      if (e.cost > room) throw new ModelTooLarge(name, e.cost, budget, room);
    }
    let load: ModelLoad;
    /** Unloading the models evicted for room (and a collection after them): part of this load's time. */
    let evictMs = 0;
    try {
      // Tokenizer and graphs first (main thread and a thread of their own, no worker memory), then room, then sessions.
      const open = await this.options.prepare(e.folder);
      evictMs = await this.makeRoom(e); // counts the model in (resident) once it fits
      if (e.removed) {
        e.resident = false;
        this.wake();
        throw new ModelUnavailable(name, 'removed');
      }
      load = await open();
    } catch (err) {
      if (err instanceof ModelUnavailable) throw err;
      e.resident = false;
      this.wake();
      // The folder went away under the load (`models remove`): the watcher drops it from the routes; not broken.
      if (e.removed || !existsSync(e.folder.info.path)) throw new ModelUnavailable(name, 'removed');
      const problem = (err as Error).message;
      e.folder.info.status = 'corrupt';
      e.folder.info.problem = problem;
      this.options.events.emit('modelLoadFailed', { name, problem });
      throw new ModelUnavailable(name, 'loadFailed', 'the operator is told in the log');
    }
    load.ms = Math.round(load.ms + evictMs);
    this.loads++;
    this.loadSeconds += load.ms / 1000;
    Object.assign(e.folder.info, load.runtime, { loadMs: load.ms });
    e.loaded = load.model;
    this.options.events.emit('modelLoaded', { name, ms: load.ms, threads: load.runtime?.threads });
    // Removed while it loaded: the requests waiting for it fail, and the last to let go unloads it (release).
    if (e.removed) throw new ModelUnavailable(name, 'removed');
    return load.model;
  }

  private residentBytes(): number {
    let sum = this.leaving;
    for (const e of this.entries.values()) if (e.resident) sum += e.cost;
    for (const e of this.gone) if (e.resident) sum += e.cost;
    return sum;
  }

  /**
   * Unloads least recently used models until `e` fits; waits while the models in the way are held by requests.
   * Returns the time spent unloading (not waiting).
   */
  private async makeRoom(e: Entry): Promise<number> {
    const { budget } = this.options;
    let unloading = 0;
    if (budget === undefined) {
      e.resident = true;
      return unloading;
    }
    while (!e.removed) {
      // Checked and taken in one step: another load resuming meanwhile sees this one counted.
      if (this.residentBytes() + e.cost <= budget) {
        e.resident = true;
        return unloading;
      }
      const victim = [...this.entries.values()]
        .filter((v) => v.loaded && v.holders === 0 && !v.kept && !v.loading)
        .sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (victim) {
        this.evictions++;
        const t0 = performance.now();
        await this.unload(victim, 'evicted');
        unloading += performance.now() - t0;
      } else {
        await new Promise<void>((resolve) => this.waiters.push(resolve));
      }
    }
    return unloading;
  }

  private async unload(e: Entry, reason: 'evicted' | 'removed'): Promise<void> {
    if (!e.resident && !e.loaded) return;
    e.loaded = undefined;
    e.resident = false;
    this.gone.delete(e);
    this.leaving += e.cost;
    try {
      await this.options.unload(e.folder.info.name);
      this.heap.note(e.tokenizerBytes);
    } finally {
      this.leaving -= e.cost;
      this.options.events.emit('modelUnloaded', { name: e.folder.info.name, reason });
      this.wake();
    }
  }

  /** After a request lets go of a model: a removed model nobody holds is unloaded; waiting loads look again. */
  private release(e: Entry): void {
    if (e.removed && e.holders === 0 && !e.loading && e.resident) void this.unload(e, 'removed');
    this.wake();
  }

  private recentTimer: NodeJS.Timeout | undefined;

  /** The order of use, written at most every few seconds, for the next start's preload. */
  private noteUse(): void {
    if (!this.options.recentFile || this.recentTimer) return;
    this.recentTimer = setTimeout(() => this.writeRecent(), RECENT_WRITE_MS);
    this.recentTimer.unref();
  }

  /** Writes the order of use now if a write is due (engine close). */
  flush(): void {
    if (this.recentTimer) this.writeRecent();
  }

  private writeRecent(): void {
    clearTimeout(this.recentTimer);
    this.recentTimer = undefined;
    const file = this.options.recentFile;
    if (!file) return;
    {
      const names = [...this.entries.values()].filter((e) => e.lastUsed > 0).sort((a, b) => b.lastUsed - a.lastUsed).map((e) => e.folder.info.name);
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(`${file}.tmp`, JSON.stringify(names));
        renameSync(`${file}.tmp`, file);
      } catch {
        // A read-only data folder: the next start preloads by name.
      }
    }
  }

  private wake(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) w();
  }
}

/** The same model files as when the folder was read (a `models pull --force` replaces them under the same name). */
function sameFiles(a: ModelFolder, b: ModelFolder): boolean {
  if (a.info.status !== b.info.status) return false;
  if (!a.runtime || !b.runtime) return !a.runtime && !b.runtime && a.info.problem === b.info.problem;
  return runtimeFiles(a.runtime).map((f) => f.stamp).join() === runtimeFiles(b.runtime).map((f) => f.stamp).join();
}
