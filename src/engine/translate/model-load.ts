// Loading one model: its tokenizer (main thread), its decoder's graphs prepared once (runtime/prepare.ts, or
// runtime/prepare-causal.ts for a decoder-only model: read from the
// graph cache here, or made in a thread of their own), then every worker opening the same files (pool.load). A failure
// names the file; the caller marks the folder corrupt.
import { cachedDecoder, graphSettings, prepareInThread, type PrepareRequest } from '../runtime/prepare.ts';
import { cachedCausal, type CausalPrepareRequest, type PreparedCausal } from '../runtime/prepare-causal.ts';
import { LAST_POSITION } from '../graph/last-position.ts';
import type { ModelFolder } from '../model/model-folder.ts';
import { runtimeFiles } from '../model/runtime-files.ts';
import { ModelTokenizer } from '../model/tokenizer.ts';
import { FAMILY_RULES } from '../model/family.ts';
import { cachedVocabulary, classifyPieces, targetScripts } from '../model/output-vocabulary.ts';
import { join } from 'node:path';
import type { LoadedModel } from './hop.ts';
import type { LoadedRuntime } from '../types.ts';
import type { WorkerPool } from '../pool/pool.ts';
import type { PreparedModelSpec } from '../pool/protocol.ts';
import type { SessionSettings } from '../settings.ts';

let preparing: Promise<void> = Promise.resolve();

/**
 * The tokenizer of a model's last load, held weakly: a model unloaded for room and loaded again before the collector
 * has taken its tokenizer gets the same one back. Models taking turns in a budget otherwise leave a dead tokenizer
 * (megabytes of main-thread heap each: a Unigram vocabulary's trie) at every load, and the heap grows by more than a
 * hundred megabytes between two full collections (docs/performance.md, "Many models within a memory budget").
 */
const lastTokenizer = new WeakMap<ModelFolder, WeakRef<ModelTokenizer>>();

export async function tokenizerOf(folder: ModelFolder): Promise<ModelTokenizer> {
  const kept = lastTokenizer.get(folder)?.deref();
  if (kept) return kept;
  const tokenizer = await ModelTokenizer.load(folder.info.path); // its error names the file (tokenizer.ts)
  lastTokenizer.set(folder, new WeakRef(tokenizer));
  return tokenizer;
}

export interface ModelLoad {
  model: LoadedModel;
  /**
   * Preparing the graphs (or reading them from the cache) and opening the sessions, in the slowest worker
   * (ResidentModels adds the unloads that made room for it).
   */
  ms: number;
  runtime: LoadedRuntime | undefined;
}

/** The part outside the workers (tokenizer, graphs); the function returned opens the sessions in every worker. */
export async function prepareModel(
  pool: WorkerPool, folder: ModelFolder, settings: SessionSettings, graphCache: string,
): Promise<() => Promise<ModelLoad>> {
  // The folder's spec keeps its prepared graphs: a model loaded again (after an unload) does not prepare them again.
  const spec: PreparedModelSpec | undefined = folder.runtime;
  if (!spec) throw new Error(folder.info.problem ?? `${folder.info.path}: not a model folder`);
  const t0 = performance.now();
  const tokenizer = await tokenizerOf(folder);
  // One preparing thread at a time: each is a whole V8 instance, and many first requests at once would start many.
  if (spec.kind === 'decoder-only') {
    const req: CausalPrepareRequest = { modelPath: spec.modelPath, stamp: spec.stamps.model, cacheDir: graphCache };
    const skipped = settings.skipPasses?.includes(LAST_POSITION);
    const prepare = async () => (skipped ? { kind: 'as-is' as const } : spec.causal ?? cachedCausal(req) ?? await prepareInThread(req));
    // the file as it is when its rewrite fails (the worker's load then says what is wrong with the file)
    const prepared = preparing.then(() => prepare().catch((): PreparedCausal => ({ kind: 'as-is' })));
    preparing = prepared.then(() => undefined);
    spec.causal = await prepared;
  } else {
    const manyScripts = !!FAMILY_RULES[spec.rules.family].manyScripts && !!folder.languageTokens;
    const req: PrepareRequest = {
      decoderPath: spec.decoderPath, stamp: spec.stamps.decoder, dims: spec.dims, padId: spec.rules.padId, eosId: spec.rules.eosId,
      settings: graphSettings(settings, manyScripts), cacheDir: graphCache,
    };
    // The pieces classed by script once (kept beside the graphs): each worker picks a batch's rows from them.
    if (req.settings.outputSubset && !spec.vocabulary) {
      const targets = targetScripts(folder.languageTokens!, (t) => tokenizer.tokenId(t));
      spec.vocabulary = cachedVocabulary(graphCache, join(folder.info.path, 'tokenizer.json'), targets,
        () => classifyPieces(tokenizer.pieces(), spec.rules.vocabSize, tokenizer.addedIds(), targets));
    }
    // The graph cache first, here (another copy of the same file, or an earlier start, prepared them); a thread only
    // when they must be made.
    const prepare = async () => {
      if (spec.graphs) return spec.graphs;
      const found = graphCache ? await cachedDecoder({ ...req, cacheDir: graphCache }) : undefined;
      return found?.prepared ?? await prepareInThread({ ...req, ...(found && { key: found.key }) });
    };
    // the worker's load then says what is wrong with the file
    const prepared = preparing.then(() => prepare().catch(() => undefined));
    preparing = prepared.then(() => undefined);
    spec.graphs = await prepared;
  }
  const prepareMs = performance.now() - t0;
  return async () => {
    const report = await pool.load(spec);
    // The worker's message names the file (seq2seq.ts load).
    if (!report.ok) throw new Error(report.message ?? `${runtimeFiles(spec).map((f) => f.path).join(' / ')}: no answer from the worker`);
    return {
      model: { info: folder.info, rules: spec.rules, tokenizer, targetTokens: folder.targetTokens, languageTokens: folder.languageTokens, prompt: folder.prompt },
      ms: Math.round(prepareMs + report.ms),
      runtime: report.runtime,
    };
  };
}
