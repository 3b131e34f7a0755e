// DRAGOMAN_SPINNING=auto: the reading of the machine (contention.ts) and the step model's non-spinning twin
// (seq2seq.ts), which must translate exactly as the spinning session does.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CpuContention, readProcStat, WINDOW_MS, type ContentionSources } from '../../src/engine/runtime/contention.ts';
import { beamSearch } from '../../src/engine/search/beam.ts';
import { greedySearch } from '../../src/engine/search/greedy.ts';
import { candidatesNeeded, processorsFor } from '../../src/engine/search/logits-processors.ts';
import { readModelFolder } from '../../src/engine/model/model-folder.ts';
import { loadModel } from '../../src/engine/runtime/load-model.ts';
import { fileStamp } from '../../src/engine/model/file-stamp.ts';
import { cacheKey, cachedDecoder, GRAPH_CACHE_KEEP_MS, prepareDecoder, prepareInThread } from '../../src/engine/runtime/prepare.ts';
import { IDLE_RELEASE_MS, StepSessions } from '../../src/engine/runtime/step-sessions.ts';
import { engineOver, FIXTURES, linkModel, readDev, tempDir, type MarianDevRow } from './helpers.ts';

/** A machine of `cpus` cores on which other processes use `others()` cores and we use `ours` cores. */
function machine(cpus: number, others: () => number, ours = 1) {
  let now = 0;
  let busy = 0;
  let own = 0;
  const sources: ContentionSources = { machine: () => ({ busyTicks: Math.round(busy), cpus }), ownMicros: () => own, nowMs: () => now };
  /** `ms` pass; returns the verdict read right after. */
  const tick = (ms: number, c: CpuContention) => {
    now += ms;
    busy += ((others() + ours) * ms) / 10; // ticks of 10 ms
    own += ours * ms * 1000;
    return c.isContended();
  };
  return { sources, tick };
}

describe('reading the machine', () => {
  it('parses /proc/stat: busy ticks include steal, CPUs are the cpuN lines', () => {
    const text = 'cpu  100 5 20 900 7 1 2 3 0 0\ncpu0 50 2 10 450 3 1 1 2 0 0\ncpu1 50 3 10 450 4 0 1 1 0 0\nintr 1 2\n';
    expect(readProcStat(text)).toEqual({ busyTicks: 100 + 5 + 20 + 1 + 2 + 3, cpus: 2 });
    expect(readProcStat('garbage')).toBeUndefined();
    expect(readProcStat('cpu 1 2\n')).toBeUndefined();
  });

  it('a quiet machine spins; one CPU-bound process beside a 2-thread pool on 2 cores stops it', () => {
    let others = 0;
    const m = machine(2, () => others);
    const c = new CpuContention(2, m.sources);
    expect(c.isContended()).toBe(false); // first reading: a baseline only
    for (let i = 0; i < 4; i++) expect(m.tick(WINDOW_MS, c)).toBe(false);
    others = 1;
    expect(m.tick(WINDOW_MS, c)).toBe(true);
    expect(c.othersCores).toBeCloseTo(1, 1);
  });

  it('comes back after two quiet windows, not one; a middling window keeps it off', () => {
    let others = 1;
    const m = machine(2, () => others);
    const changes: boolean[] = [];
    const c = new CpuContention(2, m.sources, (contended) => changes.push(contended));
    c.isContended();
    expect(m.tick(WINDOW_MS, c)).toBe(true);
    others = 0.2; // between the two thresholds
    expect(m.tick(WINDOW_MS, c)).toBe(true);
    others = 0;
    expect(m.tick(WINDOW_MS, c)).toBe(true);
    others = 0.2;
    expect(m.tick(WINDOW_MS, c)).toBe(true);
    others = 0;
    expect(m.tick(WINDOW_MS, c)).toBe(true);
    expect(m.tick(WINDOW_MS, c)).toBe(false);
    expect(changes).toEqual([true, false]);
  });

  it('reads the counters at most once a window', () => {
    let reads = 0;
    const m = machine(2, () => 1);
    const counting = { ...m.sources, machine: () => (reads++, m.sources.machine()) };
    const c = new CpuContention(2, counting);
    c.isContended();
    for (let i = 0; i < 10; i++) m.tick(WINDOW_MS / 10 - 1, c);
    expect(reads).toBe(1);
  });

  it('others on cores the pool does not need do not count (64 cores, 2 threads: 40 busy elsewhere is fine, 63 is not)', () => {
    const m = machine(64, () => 40);
    const c = new CpuContention(2, m.sources);
    c.isContended();
    expect(m.tick(WINDOW_MS, c)).toBe(false);
    const full = machine(64, () => 63);
    const d = new CpuContention(2, full.sources);
    d.isContended();
    expect(full.tick(WINDOW_MS, d)).toBe(true);
  });

  it('after a long idle gap the first window is a new baseline, not an average over the gap', () => {
    let others = 0;
    const m = machine(2, () => others);
    const c = new CpuContention(2, m.sources);
    c.isContended();
    others = 2;
    expect(m.tick(60_000, c)).toBe(false);
    expect(m.tick(WINDOW_MS, c)).toBe(true);
  });

  it('without /proc/stat (not Linux) it never reports contention', () => {
    const c = new CpuContention(2, { machine: () => undefined, ownMicros: () => 0, nowMs: () => 0 });
    expect(c.isContended()).toBe(false);
    expect(c.isContended()).toBe(false);
  });
});

describe('the non-spinning twin of the step model', () => {
  it('is opened when the cores are shared and translates exactly as the spinning session (fp32 and int8, split or merged decoder)', async () => {
    const dev = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 16);
    for (const [precision, splitDecoder] of [['fp32', true], ['int8', true], ['fp32', false], ['int8', false]] as const) {
      const folder = await readModelFolder(join(FIXTURES, 'tiny-marian-en-de'), precision);
      const spec = folder.runtime!;
      if (spec.kind !== 'encoder-decoder') throw new Error('an encoder-decoder fixture');
      const processors = processorsFor(spec.rules);
      let shared = false;
      const m = machine(2, () => (shared ? 2 : 0));
      const contention = new CpuContention(2, m.sources);
      const settings = { intraOpThreads: 2, threadsAuto: false, spinning: 'auto', poolThreads: 2, skipPasses: splitDecoder ? [] : ['split'] } as const;
      const model = await loadModel(spec.encoderPath, spec.decoderPath, spec.dims, spec.rules.padId, settings, candidatesNeeded(processors), contention, spec.rules.eosId);
      try {
        // The split decoder's step model is greedy and beam search's Loops (greedy-loop.ts, beam-loop.ts): the twin is made of it too.
        expect([model.runtime.greedyLoop, model.runtime.beamLoop]).toEqual([splitDecoder, splitDecoder]);
        const rows = dev.map((d) => ({ ids: d.src_ids, maxNewTokens: 64, minNewTokens: 0, forcedFirstId: undefined }));
        const steps = model.stepSessions!;
        const spinning = await greedySearch(model, spec.rules, processors, rows);
        const spinningBeam = await beamSearch(model, spec.rules, processors, rows, 4, 1);
        expect([steps.current, steps.openCount]).toEqual(['spin', 1]);
        shared = true;
        m.tick(WINDOW_MS, contention);
        m.tick(WINDOW_MS, contention);
        // The first contended step asks for the twin; steps go on on the spinning session until it is open.
        await greedySearch(model, spec.rules, processors, rows.slice(0, 1));
        for (let i = 0; i < 300 && steps.current !== 'calm'; i++) await new Promise((r) => setTimeout(r, 20));
        expect([steps.current, steps.openCount], `${precision} split ${splitDecoder}`).toEqual(['calm', 2]);
        const calm = await greedySearch(model, spec.rules, processors, rows);
        expect(calm, `${precision} split ${splitDecoder}`).toEqual(spinning);
        expect(await beamSearch(model, spec.rules, processors, rows, 4, 1), `${precision} split ${splitDecoder} beam`).toEqual(spinningBeam);
        expect(steps.current).toBe('calm');
        if (precision === 'fp32') expect(spinning.map((h) => h[0])).toEqual(dev.map((d) => d.greedy_ids));
      } finally {
        await model.release();
      }
    }
  });

  it('is not made for a model on one onnxruntime thread (nothing spins there)', async () => {
    const folder = await readModelFolder(join(FIXTURES, 'tiny-marian-en-de'), 'fp32');
    const spec = folder.runtime!;
    if (spec.kind !== 'encoder-decoder') throw new Error('an encoder-decoder fixture');
    const settings = { intraOpThreads: 1, threadsAuto: false, spinning: 'auto', poolThreads: 2, skipPasses: [] } as const;
    const model = await loadModel(spec.encoderPath, spec.decoderPath, spec.dims, spec.rules.padId, settings);
    try {
      expect(model.stepSessions).toBeUndefined();
    } finally {
      await model.release();
    }
  });
});

describe('preparing the graphs (runtime/prepare.ts)', () => {
  it('runs the passes once per file: a second preparation reads the cache, in a thread as in memory, and a replaced file is refused', async () => {
    const dir = tempDir();
    try {
      const decoderPath = join(dir.path, 'decoder_model_merged.onnx');
      copyFileSync(join(FIXTURES, 'tiny-marian-en-de/onnx/decoder_model_merged.onnx'), decoderPath);
      const folder = await readModelFolder(join(FIXTURES, 'tiny-marian-en-de'), 'fp32');
      const spec = folder.runtime!;
      const settings = { skip: [] as string[] };
      const req = { decoderPath, stamp: fileStamp(decoderPath), dims: spec.dims, padId: spec.rules.padId, eosId: spec.rules.eosId, settings, cacheDir: join(dir.path, 'graphs') };
      // Nothing cached yet: the lookup without a thread finds nothing and gives the key the thread then uses.
      const missed = await cachedDecoder(req);
      expect(missed.prepared).toBeUndefined();
      expect(missed.key).toBe(cacheKey(new Uint8Array(readFileSync(decoderPath)), req));
      const first = await prepareInThread({ ...req, key: missed.key });
      if (first.kind !== 'split') throw new Error('expected the split decoder');
      // fp32: no uint8 weights, so no signed-weights pass whatever the CPU.
      expect(first.facts.passes).toEqual(['split', 'attention-fusion', 'search-outputs', 'greedy-loop', 'beam-loop']);
      expect(first.cached).toBe(true);
      const written = statSync(first.model as string).mtimeMs;
      const again = await prepareDecoder(req);
      expect(again).toEqual(first);
      // Found without a thread: the same files.
      expect((await cachedDecoder(req)).prepared).toEqual(first);
      expect(statSync(first.model as string).mtimeMs).toBe(written);
      // The same bytes as a preparation in memory (no cache): the passes are deterministic.
      const inMemory = await prepareDecoder({ ...req, cacheDir: undefined });
      if (inMemory.kind !== 'split') throw new Error('expected the split decoder');
      expect(Buffer.from(inMemory.model as Uint8Array).equals(readFileSync(first.model as string))).toBe(true);
      // Other settings are another key: nothing of the first result is reused for them.
      const unfused = await prepareDecoder({ ...req, settings: { skip: ['attention-fusion'] } });
      expect(unfused.kind === 'split' && unfused.facts.fusedAttention).toBe(0);
      expect(unfused.kind === 'split' && unfused.model).not.toBe(first.model);
      // `models pull --force` writes a new file in place of the old one.
      copyFileSync(join(FIXTURES, 'tiny-marian-de-en/onnx/decoder_model_merged.onnx'), `${decoderPath}.new`);
      renameSync(`${decoderPath}.new`, decoderPath);
      await expect(prepareInThread(req)).rejects.toThrow(/changed since the server started/);
      await expect(cachedDecoder(req)).rejects.toThrow(/changed since the server started/);
    } finally {
      dir.remove();
    }
  });
});

/** A models folder in `dir` holding the en→de fixture. */
function marianModels(dir: string): string {
  const models = join(dir, 'models');
  mkdirSync(models);
  linkModel(join(models, 'tiny-marian-en-de'), 'tiny-marian-en-de');
  return models;
}

describe('a graph cache folder of its own (DRAGOMAN_GRAPH_CACHE_DIR)', () => {
  it('two engines on different data folders prepare a model once, in the shared folder, and translate alike', async () => {
    const dir = tempDir();
    try {
      const models = marianModels(dir.path);
      const graphs = join(dir.path, 'shared-graphs');
      const outputs: string[] = [];
      const marks: number[] = [];
      for (const data of ['a', 'b']) {
        const engine = await engineOver(models, { DRAGOMAN_DATA_DIR: join(dir.path, data), DRAGOMAN_GRAPH_CACHE_DIR: graphs, DRAGOMAN_WORKERS: '1' });
        outputs.push((await engine.translate(['The house is small.'], 'eng_Latn', 'deu_Latn')).translations[0]!);
        await engine.close();
        const entries = readdirSync(graphs);
        expect(entries).toHaveLength(1);
        marks.push(statSync(join(graphs, entries[0]!, 'step.onnx')).mtimeMs);
        expect(() => readdirSync(join(dir.path, data, 'graphs'))).toThrow(/ENOENT/);
      }
      // The second engine read the first one's files: written once.
      expect(marks[1]).toBe(marks[0]);
      expect(outputs[1]).toBe(outputs[0]);
    } finally {
      dir.remove();
    }
  });
});

describe('pruning the graph cache', () => {
  it('a start removes the entries no start used for a week and keeps (and marks) the ones it used', async () => {
    const dir = tempDir();
    try {
      const models = marianModels(dir.path);
      const env = { DRAGOMAN_DATA_DIR: join(dir.path, 'data'), DRAGOMAN_WORKERS: '1' };
      const graphs = join(dir.path, 'data', 'graphs');
      await (await engineOver(models, env)).close();
      const used = readdirSync(graphs);
      expect(used).toHaveLength(1);
      // As if that start were nine days ago, beside an entry of an older pass version and a killed start's folder.
      const old = new Date(Date.now() - GRAPH_CACHE_KEEP_MS - 2 * 24 * 3600_000);
      for (const stale of ['0123456789abcdef0123456789abcdef', `${used[0]}.4242.1700000000000.tmp`]) {
        mkdirSync(join(graphs, stale));
        utimesSync(join(graphs, stale), old, old);
      }
      utimesSync(join(graphs, used[0]!), old, old);
      await (await engineOver(models, env)).close();
      expect(readdirSync(graphs)).toEqual(used);
      expect(Date.now() - statSync(join(graphs, used[0]!)).mtimeMs).toBeLessThan(GRAPH_CACHE_KEEP_MS);
    } finally {
      dir.remove();
    }
  });
});

describe('which step session runs', () => {
  /** Stand-ins with the names a session has; release() recorded. */
  function fakeSession(tag: string, released: string[]) {
    return { tag, inputNames: ['a'], outputNames: ['b'], release: async () => void released.push(tag) } as unknown as import('onnxruntime-node').InferenceSession & { tag: string };
  }

  it('spins while quiet, goes calm when shared, releases the one unused for a minute, reopens it when needed', async () => {
    let contended = false;
    let now = 0;
    const released: string[] = [];
    const opened: string[] = [];
    const contention = { isContended: () => contended } as unknown as CpuContention;
    const spin = fakeSession('spin0', released);
    const steps = new StepSessions(spin, contention, async () => new Uint8Array(), { spin: {}, calm: {} }, () => now);
    // onnxruntime is not needed to see the choices: the twin is a stand-in too.
    (steps as unknown as { openMode: (m: string) => Promise<void> }).openMode = async function (this: any, mode: string) {
      opened.push(mode);
      this.open[mode] = fakeSession(`${mode}${opened.length}`, released);
      this.lastUsed[mode] = now;
      delete this.opening[mode];
    };
    const tagOf = () => (steps.pick() as unknown as { tag: string }).tag;
    expect(tagOf()).toBe('spin0');
    contended = true;
    expect(tagOf()).toBe('calm1'); // opened (here at once) on the first contended step
    now += IDLE_RELEASE_MS / 2;
    expect(tagOf()).toBe('calm1');
    expect(released).toEqual([]);
    now += IDLE_RELEASE_MS;
    expect(tagOf()).toBe('calm1');
    expect(released).toEqual(['spin0']);
    expect(steps.openCount).toBe(1);
    contended = false;
    expect(tagOf()).toBe('spin2');
    expect(opened).toEqual(['calm', 'spin']);
    await steps.release();
    expect(released.sort()).toEqual(['calm1', 'spin0', 'spin2']);
  });

  it('a twin that cannot be opened is not tried again and the spinning session goes on', async () => {
    const released: string[] = [];
    const spin = fakeSession('spin0', released);
    let rebuilds = 0;
    const steps = new StepSessions(spin, { isContended: () => true } as unknown as CpuContention, async () => {
      rebuilds++;
      return new Uint8Array([1, 2, 3]); // not a model: onnxruntime refuses it
    }, { spin: {}, calm: {} });
    expect((steps.pick() as unknown as { tag: string }).tag).toBe('spin0');
    for (let i = 0; i < 100 && rebuilds === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect((steps.pick() as unknown as { tag: string }).tag).toBe('spin0');
    expect(rebuilds).toBe(1);
  });
});
