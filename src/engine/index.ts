// createEngine: the registry, tokenizers, router, cache and batcher in the main thread; generation on the pool.
import { EventEmitter } from 'node:events';
import type { Config } from '../config/env.ts';
import { invalidRequest } from '../service/errors.ts';
import { applyAmxSetting, type AmxStatus } from './runtime/amx.ts';
import { Batcher, type BatchEvent } from './batching/batcher.ts';
import { TranslationCache } from './translate/cache.ts';
import { usableCores } from './pool/cpu-limit.ts';
import { FAMILY_RULES, maxNewTokens, maxSourceTokens, type GenerationRules } from './model/family.ts';
import { WorkerPool } from './pool/pool.ts';
import type { GenerationRow, ModelRuntimeSpec } from './pool/protocol.ts';
import { scanFolders } from './model/registry.ts';
import { Router } from './translate/router.ts';
import { fitPieces } from './translate/long-input.ts';
import { ModelTokenizer } from './model/tokenizer.ts';
import type { Engine, EngineResult, ModelInfo, TranslateOptions } from './types.ts';

export { scanModels } from './model/registry.ts';
export type { BatchEvent } from './batching/batcher.ts';
export { fitPieces } from './translate/long-input.ts';

export interface EngineOptions {
  /** Benchmark only: every row generates exactly this many tokens (EOS suppressed before it). */
  fixedNewTokens?: number;
}

/**
 * What /metrics and the log can read besides stats(): 'batch' (BatchEvent), 'modelLoaded' ({name, ms, threads}),
 * 'route' (string[]), 'workerExit' ({restarts}), 'workerLoadFailed' ({problem}), 'spinning' ({spinning, othersCores,
 * worker}: DRAGOMAN_SPINNING=auto changed its mind in that worker thread), 'beamLoopStopped' ({model, problem, worker}:
 * that worker's beam Loop for the model chose otherwise than beam search and was stopped; beam.ts's beamSearchSafe).
 */
export interface EngineEvents extends EventEmitter {}

export interface DragomanEngine extends Engine {
  readonly events: EngineEvents;
  /** Worker threads and onnxruntime threads per worker actually used. */
  readonly threads: { workers: number; intraOp: number };
  /** What DRAGOMAN_AMX did to this process (amx.ts). */
  readonly amx: AmxStatus;
  cacheStats(): { size: number; hits: number; misses: number };
  /** Test hook: kill a worker (the busy one if any) as if it crashed. */
  crashWorkerForTest(): void;
}

interface LoadedModel {
  info: ModelInfo;
  rules: GenerationRules;
  tokenizer: ModelTokenizer;
  /** Multi-target Marian: FLORES code -> `>>xx<<` token opening the source. */
  targetTokens?: Record<string, string>;
  languageTokens?: Record<string, string>;
}

interface Hop {
  translations: string[];
  alternatives: string[][];
}

/** Longest segment (UTF-16 units) the translation cache keeps: with the default 10,000 entries, at most ~100 MB. */
export const MAX_CACHED_CHARS = 2_000;

/** A segment with no letter in any script has nothing for a model to translate. */
const HAS_LETTER = /\p{L}/u;

/**
 * Defaults for the pool on this machine: one worker per two cores, at most 4 (each worker holds a full replica of
 * every model: 4 x NLLB-600M int8 is already ~4 GB), the cores shared out as onnxruntime threads. Cores = the CPUs
 * this process may use, a container's CPU quota included (cpu-limit.ts).
 */
export function poolShape(config: Pick<Config, 'workers' | 'intraOpThreads'>, cores = usableCores()) {
  const workers = config.workers || Math.min(4, Math.max(1, Math.floor(cores / 2)));
  const intraOp = config.intraOpThreads || Math.max(1, Math.floor(cores / workers));
  return { workers, intraOp };
}

export async function createEngine(config: Config, options: EngineOptions = {}): Promise<DragomanEngine> {
  const events: EngineEvents = new EventEmitter();
  // Before the workers make their first onnxruntime session: the filter covers every thread made later.
  const amx = applyAmxSetting(config.amx);
  const folders = await scanFolders(config.modelsDir, config.precision);
  const threads = poolShape(config);
  const pool = new WorkerPool(threads.workers, { intraOpThreads: threads.intraOp, threadsAuto: !config.intraOpThreads, spinning: config.spinning, poolThreads: threads.workers * threads.intraOp, splitDecoder: config.splitDecoder, fuseAttention: config.fuseAttention, greedyTopK: config.greedyTopK, beamTopK: config.beamTopK, greedyLoop: config.greedyLoop, beamLoop: config.beamLoop });
  const loaded = new Map<string, LoadedModel>();

  const candidates: { folder: (typeof folders)[number]; tokenizer: ModelTokenizer }[] = [];
  for (const folder of folders) {
    if (!folder.runtime) continue;
    try {
      candidates.push({ folder, tokenizer: await ModelTokenizer.load(folder.info.path) });
    } catch (err) {
      folder.info.status = 'corrupt';
      folder.info.problem = (err as Error).message; // names the file (tokenizer.ts)
    }
  }
  const reports = await pool.start(candidates.map((c) => c.folder.runtime as ModelRuntimeSpec));
  for (const { folder, tokenizer } of candidates) {
    const report = reports.find((r) => r.name === folder.info.name);
    if (!report?.ok) {
      folder.info.status = 'corrupt';
      // The worker's message names the file (seq2seq.ts load).
      folder.info.problem = report?.message ?? `${folder.runtime!.encoderPath} / ${folder.runtime!.decoderPath}: no answer from the worker`;
      continue;
    }
    folder.info.loadMs = report.ms;
    Object.assign(folder.info, report.runtime);
    loaded.set(folder.info.name, { info: folder.info, rules: folder.runtime!.rules, tokenizer, targetTokens: folder.targetTokens, languageTokens: folder.languageTokens });
    events.emit('modelLoaded', { name: folder.info.name, ms: report.ms, threads: report.runtime?.threads });
  }

  const router = new Router([...loaded.values()].map((m) => ({
    name: m.info.name,
    family: m.info.family!,
    sources: new Set(m.info.sources),
    targets: new Set(m.info.targets),
  })));
  const cache = new TranslationCache<Hop>(config.cacheSize);
  /** Segments being translated right now, by cache key, and how many other requests wait for each (see translateHop). */
  const inFlight = new Map<string, { promise: Promise<Hop>; joiners: number }>();
  const batcher = new Batcher(pool, { batchTokens: config.batchTokens, batchWaitMs: config.batchWaitMs });
  batcher.on('batch', (e: BatchEvent) => events.emit('batch', e));
  // For the log: a worker replaced after a crash, or a replacement that could not load the models.
  pool.on('workerExit', () => events.emit('workerExit', { restarts: pool.restarts }));
  pool.on('workerLoadFailed', (problem: string) => events.emit('workerLoadFailed', { problem }));
  pool.on('spinning', (e: { spinning: boolean; othersCores: number; worker: number }) => events.emit('spinning', e));
  pool.on('beamLoopStopped', (e: { model: string; problem: string; worker: number }) => events.emit('beamLoopStopped', e));

  function languageTokenId(model: LoadedModel, token: string | undefined, flores: string): number {
    const id = token === undefined ? undefined : model.tokenizer.tokenId(token);
    if (id === undefined) throw invalidRequest(`Model ${model.info.name} has no token for language ${flores}.`);
    return id;
  }

  async function translateHop(model: LoadedModel, source: string, target: string, texts: string[], opts: TranslateOptions): Promise<Hop> {
    const alternatives = Math.max(0, opts.alternatives ?? 0);
    let beams = Math.max(1, opts.beams ?? config.beam ?? model.rules.defaultBeams);
    if (alternatives > 0) beams = Math.max(beams, alternatives + 1); // n-best needs at least that many beams
    const nBest = alternatives > 0 ? beams : 1;
    // The family's framing (family.ts): NLLB, M2M-100 and mBART-50 open the input with the source's token and force
    // the target's first; a multi-target Marian model reads the target's >>xx<< token first and needs nothing forced.
    const rules = FAMILY_RULES[model.info.family!];
    const languageToken = (flores: string) => languageTokenId(model, model.languageTokens?.[flores], flores);
    const openingToken = rules.opening === 'source' ? languageToken(source)
      : model.targetTokens ? languageTokenId(model, model.targetTokens[target], target) : undefined;
    const forcedFirstId = rules.forcesTargetToken ? languageToken(target) : undefined;

    const out: Hop = { translations: new Array<string>(texts.length).fill(''), alternatives: texts.map(() => []) };
    const keyOf = (text: string) => TranslationCache.key(model.info.name, source, target, beams, alternatives, text);
    const todo = new Map<string, number[]>(); // distinct text -> positions
    const joining: Promise<void>[] = [];
    texts.forEach((text, i) => {
      if (!text.trim()) return; // whitespace is not sent to the model
      // Nothing to translate (a number, "!!!", an emoji, a list marker): a model would invent a sentence for it.
      if (!HAS_LETTER.test(text)) {
        out.translations[i] = text;
        return;
      }
      const key = keyOf(text);
      const hit = cache.get(key);
      if (hit) {
        out.translations[i] = hit.translations[0]!;
        out.alternatives[i] = hit.alternatives[0]!;
        return;
      }
      // The same segment already on its way for another request: share that result, so concurrent requests (and
      // the cache entry left behind) agree — an int8 result may depend on which sentences share its batch.
      const pending = inFlight.get(key);
      if (pending) {
        pending.joiners++;
        const joined = pending.promise.then((r) => {
          out.translations[i] = r.translations[0]!;
          out.alternatives[i] = r.alternatives[0]!;
        });
        joined.catch(() => {}); // awaited below; handled here in case this request fails first on its own segments
        joining.push(joined);
        return;
      }
      todo.set(text, [...(todo.get(text) ?? []), i]);
    });
    if (!todo.size) {
      await Promise.all(joining);
      return out;
    }

    // A sentence longer than the model's position table is cut at spaces into pieces that fit (rare: the service
    // segments text into sentences first); its translation is the pieces' translations joined by a space.
    const distinct = [...todo.keys()];
    const settle = new Map<string, { resolve: (r: Hop) => void; reject: (e: unknown) => void }>();
    for (const text of distinct) {
      const promise = new Promise<Hop>((resolve, reject) => settle.set(text, { resolve, reject }));
      promise.catch(() => {}); // a failure is the owner's to report; a joiner sees it through its own await
      inFlight.set(keyOf(text), { promise, joiners: 0 });
    }
    try {
      const limit = maxSourceTokens(model.rules);
      const pieces = distinct.map((text) => fitPieces(text, (t) => model.tokenizer.encode(t, openingToken), limit));
      const rows: GenerationRow[] = pieces.flat().map(({ ids }) => {
        const max = options.fixedNewTokens ?? maxNewTokens(model.rules, ids.length);
        return { ids, maxNewTokens: max, minNewTokens: options.fixedNewTokens ?? 0, forcedFirstId };
      });
      // A client that has gone drops its waiting rows, unless another request waits for one of its sentences.
      const cancel = opts.signal && {
        signal: opts.signal,
        dropWaiting: () => distinct.every((text) => (inFlight.get(keyOf(text))?.joiners ?? 0) === 0),
      };
      const hypotheses = await batcher.submit(model.info.name, beams, nBest, rows, cancel);
      let next = 0;
      distinct.forEach((text, d) => {
        const results = pieces[d]!.map(() => hypotheses[next++]!.map((ids) => model.tokenizer.decode(ids)));
        const best = results.map((strings) => strings[0] ?? '').join(' ');
        const others = results.length === 1
          ? [...new Set(results[0]!.slice(1))].filter((s) => s !== best).slice(0, alternatives)
          : [];
        const result: Hop = { translations: [best], alternatives: [others] };
        // A very long segment is not kept: it rarely comes again, and 10,000 of them would hold gigabytes.
        if (text.length <= MAX_CACHED_CHARS) cache.set(keyOf(text), result);
        inFlight.delete(keyOf(text));
        settle.get(text)!.resolve(result);
        for (const i of todo.get(text)!) {
          out.translations[i] = best;
          out.alternatives[i] = others;
        }
      });
    } catch (err) {
      for (const text of distinct) {
        inFlight.delete(keyOf(text));
        settle.get(text)!.reject(err);
      }
      throw err;
    }
    await Promise.all(joining);
    return out;
  }

  const engine: DragomanEngine = {
    events,
    threads,
    amx,

    async translate(segments, source, target, opts = {}): Promise<EngineResult> {
      const route = router.route(source, target);
      if (!route) throw invalidRequest(`No installed model translates ${source} into ${target}.`);
      if (!route.length) return { translations: [...segments], route };
      // Nothing with a letter (numbers, symbols, list markers): no model runs, and the route says so (X-Dragoman-Model: none).
      if (!segments.some((s) => HAS_LETTER.test(s))) return { translations: segments.map((s) => (s.trim() ? s : '')), route: [] };
      events.emit('route', route);
      let texts = segments;
      let alternatives: string[][] | undefined;
      let from = source;
      for (let h = 0; h < route.length; h++) {
        const to = h === route.length - 1 ? target : 'eng_Latn';
        const last = h === route.length - 1;
        // Alternatives come from the last hop only; earlier hops pass on their best translation.
        const hop = await translateHop(loaded.get(route[h]!)!, from, to, texts, last ? opts : { beams: opts.beams, signal: opts.signal });
        texts = hop.translations;
        if (last && opts.alternatives) alternatives = hop.alternatives;
        from = to;
      }
      return alternatives ? { translations: texts, alternatives, route } : { translations: texts, route };
    },

    route: (source, target) => router.route(source, target),
    sourceLanguages: () => router.sources(),
    targetLanguages: (source) => router.targets(source),
    models: () => folders.map((f) => ({ ...f.info })),
    stats: () => ({ workers: threads.workers, workersAlive: pool.alive(), queueDepth: batcher.depth, workerRestarts: pool.restarts }),
    cacheStats: () => ({ size: cache.size, hits: cache.hits, misses: cache.misses }),
    crashWorkerForTest: () => pool.crashOne(),
    async close() {
      batcher.close();
      await pool.close();
    },
  };
  return engine;
}
