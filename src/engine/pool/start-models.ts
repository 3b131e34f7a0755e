// Starting the pool with every model: each folder's tokenizer, each decoder's graphs prepared once (graph/prepare.ts,
// in a thread, or read from the cache of an earlier start), then every worker loading the same files. A folder that
// fails at any stage is marked corrupt with the message naming its file; the others are served.
import type { EventEmitter } from 'node:events';
import { graphSettings, prepareInThread, pruneGraphCache } from '../graph/prepare.ts';
import type { ModelFolder } from '../model/model-folder.ts';
import { ModelTokenizer } from '../model/tokenizer.ts';
import type { LoadedModel } from '../translate/hop.ts';
import type { WorkerPool } from './pool.ts';
import type { ModelRuntimeSpec, SessionSettings } from './protocol.ts';

/** The models every worker loaded, by name; gets 'modelLoaded' for each. */
export async function startModels(
  pool: WorkerPool, folders: readonly ModelFolder[], settings: SessionSettings, graphCache: string, events: EventEmitter,
): Promise<Map<string, LoadedModel>> {
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
  // Each decoder's graphs made once (graph/prepare.ts), in a thread, or read from the cache of an earlier start; every
  // worker then opens the same files.
  const prepareMs = new Map<string, number>();
  for (const { folder } of candidates) {
    const spec = folder.runtime!;
    const t0 = performance.now();
    spec.graphs = await prepareInThread({
      decoderPath: spec.decoderPath, stamp: spec.stamps.decoder, dims: spec.dims, padId: spec.rules.padId, eosId: spec.rules.eosId,
      settings: graphSettings(settings), cacheDir: graphCache,
    }).catch(() => undefined); // the worker's load then says what is wrong with the file
    prepareMs.set(spec.name, Math.round(performance.now() - t0));
  }
  if (graphCache) pruneGraphCache(graphCache);
  const reports = await pool.start(candidates.map((c) => c.folder.runtime as ModelRuntimeSpec));
  for (const { folder, tokenizer } of candidates) {
    const report = reports.find((r) => r.name === folder.info.name);
    if (!report?.ok) {
      folder.info.status = 'corrupt';
      // The worker's message names the file (seq2seq.ts load).
      folder.info.problem = report?.message ?? `${folder.runtime!.encoderPath} / ${folder.runtime!.decoderPath}: no answer from the worker`;
      continue;
    }
    // Preparing the graphs (or reading them from the cache) and opening the sessions.
    const ms = report.ms + (prepareMs.get(folder.info.name) ?? 0);
    folder.info.loadMs = ms;
    Object.assign(folder.info, report.runtime);
    loaded.set(folder.info.name, { info: folder.info, rules: folder.runtime!.rules, tokenizer, targetTokens: folder.targetTokens, languageTokens: folder.languageTokens });
    events.emit('modelLoaded', { name: folder.info.name, ms, threads: report.runtime?.threads });
  }

  return loaded;
}
