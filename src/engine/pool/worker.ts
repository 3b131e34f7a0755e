// A pool worker: owns the onnxruntime sessions of every loaded model (one replica) and runs one generation job at a time.
import { parentPort } from 'node:worker_threads';
import { beamSearch } from '../search/beam.ts';
import { greedySearch } from '../search/greedy.ts';
import { candidatesNeeded, processorsFor, type LogitsProcessor } from '../search/logits-processors.ts';
import { CpuContention } from '../runtime/contention.ts';
import { assertUnchanged } from '../model/file-stamp.ts';
import type { FromWorker, PreparedModelSpec, ToWorker } from './protocol.ts';
import type { GenerationJob, GenerationRow } from '../search/types.ts';
import type { SessionSettings } from '../settings.ts';
import { loadModel } from '../runtime/load-model.ts';
import type { Seq2SeqModel } from '../runtime/seq2seq.ts';
import { CausalLm } from '../runtime/causal-lm.ts';
import { runtimeFiles } from '../model/runtime-files.ts';
import { outputIds, type OutputVocabulary } from '../model/output-vocabulary.ts';
import { searchWithConstraints } from '../search/constrained-beam.ts';
import { Turns, type Turn } from './turns.ts';
import { decoderWithTurns } from './turn-decoder.ts';

interface Loaded {
  spec: PreparedModelSpec;
  model: Seq2SeqModel | CausalLm;
  processors: LogitsProcessor[];
}

const port = parentPort;
if (!port) throw new Error('engine worker must run in a worker thread');
const models = new Map<string, Loaded>();
let settings: SessionSettings = { intraOpThreads: 1, threadsAuto: false, spinning: 'off', poolThreads: 1 };

const send = (m: FromWorker) => port.postMessage(m);

/** DRAGOMAN_SPINNING=auto: one reading of the machine for all of this worker's models, made on `init`. */
let contention: CpuContention | undefined;

async function load(spec: PreparedModelSpec): Promise<void> {
  const t0 = performance.now();
  try {
    // The files read at start, not others put in their place since (a replacement worker loads long after start).
    for (const f of runtimeFiles(spec)) assertUnchanged(f.path, f.stamp);
    const processors = processorsFor(spec.rules);
    const model = spec.kind === 'decoder-only' ? await CausalLm.load(spec, settings, spec.causal)
      : await loadModel(spec.encoderPath, spec.decoderPath, spec.dims, spec.rules.padId, settings, candidatesNeeded(processors), contention, spec.rules.eosId, spec.graphs, !!spec.vocabulary);
    models.set(spec.name, { spec, model, processors });
    send({ type: 'loaded', name: spec.name, ms: Math.round(performance.now() - t0), runtime: model.runtime });
  } catch (err) {
    send({ type: 'loadFailed', name: spec.name, message: (err as Error).message });
  }
}

// An unload comes only for a model no request is using (translate/resident-models.ts), so no job with turns runs on it.
async function unload(name: string): Promise<void> {
  const m = models.get(name);
  models.delete(name);
  try {
    await m?.model.release();
  } finally {
    send({ type: 'unloaded', name });
  }
}

/**
 * The vocabulary ids a job's output layer runs over (model/output-vocabulary.ts): its rows' target languages' rows,
 * and every id its rows hold (source pieces, glossary terms).
 */
function jobOutputIds(vocabulary: OutputVocabulary, rows: readonly GenerationRow[]): BigInt64Array | undefined {
  const own: number[] = [];
  for (const r of rows) {
    own.push(...r.ids);
    for (const p of r.constraints?.phrases ?? []) own.push(...p);
  }
  return outputIds(vocabulary, rows.map((r) => r.forcedFirstId), own);
}

/** DRAGOMAN_SCHEDULING=priority: the jobs on this worker take turns between decoder steps (turns.ts). */
let turns: Turns | undefined;

async function run(id: number, job: GenerationJob, turn?: Turn): Promise<void> {
  const t0 = performance.now();
  try {
    const m = models.get(job.model);
    if (!m) throw new Error(`model ${job.model} is not loaded in this worker`);
    const own = m.spec.kind === 'encoder-decoder' && m.spec.vocabulary
      ? (m.model as Seq2SeqModel).withOutputIds(jobOutputIds(m.spec.vocabulary, job.rows)) : m.model;
    const budget = settings.turns && { ...settings.turns, demoted: () => send({ type: 'demoted', id }) };
    const decoder = turn && turns && budget ? decoderWithTurns(own, turns, turn, budget) : own;
    const plain = (rows: readonly GenerationRow[]) => job.beams <= 1
      ? greedySearch(decoder, m.spec.rules, m.processors, rows)
      : beamSearch(decoder, m.spec.rules, m.processors, rows, job.beams, job.nBest);
    // Rows that must contain given phrases (glossary terms, kept spans) take the constrained search; the others
    // are searched exactly as without them.
    const hypotheses = job.rows.some((r) => r.constraints)
      ? await searchWithConstraints(plain, decoder, m.spec.rules, m.processors, job.rows, job.beams, job.nBest)
      : await plain(job.rows);
    send({ type: 'result', id, hypotheses, ms: performance.now() - t0 });
  } catch (err) {
    send({ type: 'failed', id, message: (err as Error).message });
  } finally {
    if (turn) turns?.leave(turn);
  }
}

// Loads are handled one after the other, and so are jobs without turns (the pool then sends one at a time); jobs
// with turns start as they come, after the loads, and their runs take turns.
let chain: Promise<void> = Promise.resolve();
port.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'init':
      settings = msg.settings;
      if (settings.turns?.scheduling === 'priority') {
        const sent = new Int32Array(msg.sent);
        turns = new Turns(settings.turns, () => Atomics.load(sent, 0));
      }
      if (settings.spinning === 'auto') {
        contention = new CpuContention(settings.poolThreads, undefined, (contended, othersCores) =>
          send({ type: 'spinning', spinning: !contended, othersCores }),
        );
      }
      send({ type: 'ready' });
      break;
    case 'load':
      chain = chain.then(() => load(msg.model));
      break;
    case 'run':
      if (turns) {
        const turn = turns.join(msg.job.priority ?? 'interactive');
        void chain.then(() => run(msg.id, msg.job, turn));
      } else {
        chain = chain.then(() => run(msg.id, msg.job));
      }
      break;
    case 'unload':
      chain = chain.then(() => unload(msg.name));
      break;
    case 'exit':
      process.exit(0);
      break;
    case 'crash':
      setImmediate(() => {
        throw new Error('worker crash requested by a test');
      });
      break;
  }
});
