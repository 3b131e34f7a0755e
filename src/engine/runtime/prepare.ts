// The decoder the runtime opens, made once per decoder file at load: optimum's merged file cut in two, graph/'s
// meaning-preserving rewrites run over it, then the search graphs (search-graphs/), every pass with its check. With a cache folder the result is written there, under a key made of
// the file's SHA-256, the passes' names and versions and what else they depend on (the CPU's VNNI, the model's
// dimensions and ids, the settings), so a restart, a replacement worker and the step model's non-spinning twin all
// open the same files instead of rebuilding them. The engine looks in the cache first (cachedDecoder) and runs the rest in
// a thread of its own (prepareInThread): the rewriting is seconds of synchronous JavaScript on a large model.
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import type { DecoderDims } from '../model/family.ts';
import { assertUnchanged } from '../model/file-stamp.ts';
import { cpuHasVnni } from '../graph/cpu-features.ts';
import type { SessionSettings } from '../settings.ts';
import type { GraphFacts, GraphPass, GraphSettings, PassContext } from '../graph/pass.ts';
import { passVersions, REWRITES, runPasses, splitDecoder } from '../graph/passes.ts';
import { SEARCH_GRAPHS } from '../search-graphs/passes.ts';
import type { CausalPrepareRequest, PreparedCausal } from './prepare-causal.ts';

/**
 * Every pass in the order it runs (DRAGOMAN_SKIP_PASSES names them, src/config/env.ts's GRAPH_PASSES lists them):
 * the rewrites first, so that the search graphs wrap the rewritten step model.
 */
export const PASSES: readonly GraphPass[] = [...REWRITES, ...SEARCH_GRAPHS];

export interface PrepareRequest {
  decoderPath: string;
  /** The file as it was read at start (file-stamp.ts): a file replaced since is refused. */
  stamp: string;
  dims: DecoderDims;
  padId: number;
  eosId: number | undefined;
  settings: GraphSettings;
  /** Where results are kept; undefined = in memory only (tests, benchmarks). */
  cacheDir?: string;
  /** The cache key when it was worked out already (cachedDecoder): the file is not hashed again. */
  key?: string;
}

/** The decoder to open: the merged file as it is, or the split models (files in the cache, or bytes). */
export type PreparedDecoder =
  | { kind: 'merged' }
  | { kind: 'split'; crossKv: string | Uint8Array; model: string | Uint8Array; facts: GraphFacts; cached: boolean };

/**
 * The rewrites the session settings leave out (sorted: the list is part of the cache key), and whether the output
 * projection runs over a chosen subset (DRAGOMAN_VOCABULARY=target on a model whose family has `manyScripts`).
 */
export function graphSettings(s: SessionSettings, manyScripts = false): GraphSettings {
  return { skip: [...(s.skipPasses ?? [])].sort(), ...(manyScripts && s.vocabulary === 'target' ? { outputSubset: true } : {}) };
}

/** Files of one cached result. */
const FILES = { facts: 'graph.json', crossKv: 'cross-kv.onnx', model: 'step.onnx' } as const;

/** The cache key of a decoder file's bytes under this request (everything the passes' output depends on). */
export function cacheKey(bytes: Uint8Array, req: PrepareRequest): string {
  const hash = createHash('sha256');
  hash.update(bytes);
  return keyOf(hash, req);
}

/** The file's bytes are in `hash`; the rest of the key is what the passes' output depends on besides them. */
function keyOf(hash: Hash, req: PrepareRequest): string {
  hash.update(JSON.stringify({
    passes: passVersions(PASSES), vnni: cpuHasVnni(), dims: req.dims, padId: req.padId, eosId: req.eosId ?? null, settings: req.settings,
    ort: ort.env.versions.common,
  }));
  return hash.digest('hex').slice(0, 32);
}

function readCached(dir: string): PreparedDecoder | undefined {
  try {
    const saved = JSON.parse(readFileSync(join(dir, FILES.facts), 'utf8')) as { kind: 'merged' } | { kind: 'split'; facts: GraphFacts };
    if (saved.kind === 'merged') return saved;
    if (!existsSync(join(dir, FILES.model)) || !existsSync(join(dir, FILES.crossKv))) return undefined;
    return { kind: 'split', crossKv: join(dir, FILES.crossKv), model: join(dir, FILES.model), facts: saved.facts, cached: true };
  } catch {
    return undefined;
  }
}

/** Writes a result beside the others, whole or not at all (a temporary folder renamed into place). */
function writeCached(dir: string, result: PreparedDecoder): PreparedDecoder {
  const tmp = `${dir}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(tmp, { recursive: true });
    if (result.kind === 'split') {
      writeFileSync(join(tmp, FILES.crossKv), result.crossKv as Uint8Array);
      writeFileSync(join(tmp, FILES.model), result.model as Uint8Array);
    }
    writeFileSync(join(tmp, FILES.facts), JSON.stringify(result.kind === 'split' ? { kind: 'split', facts: result.facts } : result));
    try {
      renameSync(tmp, dir);
    } catch {
      // Another process wrote the same result first (a rename never replaces a folder that has files): use it, or
      // replace it if it is not whole.
      rmSync(tmp, { recursive: true, force: true });
      const theirs = readCached(dir);
      if (theirs) return theirs;
      rmSync(dir, { recursive: true, force: true });
      return writeCached(dir, result);
    }
    return readCached(dir) ?? result;
  } catch {
    // A cache that cannot be written (read-only data folder, full disk) costs start-up time, not translations.
    rmSync(tmp, { recursive: true, force: true });
    return result;
  }
}

/** Marks an entry as used now: pruneGraphCache keeps what any start used lately. */
function touch(dir: string): void {
  try {
    const now = new Date();
    utimesSync(dir, now, now);
  } catch {
    // A read-only cache is still read; it is just never pruned.
  }
}

/** How long an entry no start has used is kept (a replica on other settings sharing the folder still finds its own). */
export const GRAPH_CACHE_KEEP_MS = 7 * 24 * 3600_000;

/**
 * Removes the entries no start has used for keepMs (old pass versions, replaced model files, other settings),
 * and temporary folders a killed start left behind. Runs after this start's models are prepared, so everything
 * they use has just been touched. Returns the names removed.
 */
export function pruneGraphCache(cacheDir: string, keepMs = GRAPH_CACHE_KEEP_MS, now = Date.now()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return removed; // no cache yet
  }
  for (const name of names) {
    const path = join(cacheDir, name);
    try {
      if (now - statSync(path).mtimeMs <= keepMs) continue;
      rmSync(path, { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Gone already (another replica pruned it) or not ours to remove: left as it is.
    }
  }
  return removed;
}

const CHECK_OPTIONS: ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential', logSeverityLevel: 3,
  extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
};

/**
 * The cached result for a decoder file, looked up where the caller runs (the engine's main thread) instead of in a
 * thread of its own: starting that thread costs hundreds of milliseconds, more than the lookup on a small model. The
 * file is hashed as a stream of 1 MiB reads, so a large decoder never holds the event loop for long. `key` goes to
 * prepareInThread on a miss, which then does not hash the file again.
 */
export async function cachedDecoder(req: PrepareRequest & { cacheDir: string }): Promise<{ prepared: PreparedDecoder | undefined; key: string }> {
  assertUnchanged(req.decoderPath, req.stamp);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(req.decoderPath, { highWaterMark: 2 ** 20 })) hash.update(chunk as Buffer);
  assertUnchanged(req.decoderPath, req.stamp); // not replaced while it was read
  const key = keyOf(hash, req);
  const dir = join(req.cacheDir, key);
  const prepared = readCached(dir);
  if (prepared) touch(dir);
  return { prepared, key };
}

/** Cuts the decoder and runs the passes (or reads their cached result). */
export async function prepareDecoder(req: PrepareRequest): Promise<PreparedDecoder> {
  assertUnchanged(req.decoderPath, req.stamp);
  const bytes = new Uint8Array(readFileSync(req.decoderPath));
  const dir = req.cacheDir ? join(req.cacheDir, req.key ?? cacheKey(bytes, req)) : undefined;
  const cached = dir ? readCached(dir) : undefined;
  if (cached) {
    touch(dir!);
    return cached;
  }
  const split = splitDecoder(bytes, req.settings);
  let result: PreparedDecoder = { kind: 'merged' };
  if (split) {
    const crossKv = await ort.InferenceSession.create(split.crossKv, CHECK_OPTIONS).catch(() => undefined);
    if (crossKv) {
      try {
        const ctx: PassContext = {
          decoderPath: req.decoderPath, decoderBytes: bytes.length, dims: req.dims, padId: req.padId, eosId: req.eosId,
          settings: req.settings, crossKv, open: (model) => ort.InferenceSession.create(model, CHECK_OPTIONS),
        };
        // The cut itself must load: else the merged file (slower, never wrong).
        await (await ctx.open(split.step)).release();
        const g = await runPasses(split, ctx, PASSES);
        result = { kind: 'split', crossKv: g.crossKv, model: g.model, facts: g.facts, cached: false };
      } catch {
        result = { kind: 'merged' };
      } finally {
        await crossKv.release();
      }
    }
  }
  return dir ? writeCached(dir, result) : result;
}

const ENTRY = new URL('../pool/worker-entry.mjs', import.meta.url);

/** prepareDecoder in a thread of its own (prepare-thread.ts); bytes, if any, are moved here, not copied. */
export function prepareInThread(req: PrepareRequest): Promise<PreparedDecoder>;
/** prepareCausal (prepare-causal.ts) in a thread of its own. */
export function prepareInThread(req: CausalPrepareRequest): Promise<PreparedCausal>;
export function prepareInThread(req: PrepareRequest | CausalPrepareRequest): Promise<PreparedDecoder | PreparedCausal> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(ENTRY, { workerData: { entry: 'prepare', req }, execArgv: [], stdout: false, stderr: false });
    let done = false;
    worker.once('message', (m: { prepared?: PreparedDecoder | PreparedCausal; error?: string }) => {
      done = true;
      if (m.prepared) resolve(m.prepared);
      else reject(new Error(m.error ?? 'graph preparation failed'));
    });
    worker.once('error', (err) => {
      done = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!done) reject(new Error(`graph preparation thread exited with code ${code}`));
    });
  });
}
