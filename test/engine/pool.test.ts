// A worker that dies mid-request fails that request clearly; the pool replaces it and keeps serving.
import { EngineUnavailable, WorkerDied } from '../../src/engine/errors.ts';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DragomanEngine } from '../../src/engine/index.ts';
import { poolShape } from '../../src/engine/pool/cpu-limit.ts';
import { loadConfig } from '../../src/config/env.ts';
import { SMALL_DECODER_BYTES, sessionOptions, threadsFor } from '../../src/engine/runtime/session-options.ts';
import { CORE_FIXTURES, FIXTURES, engineOver, oneModelDir, readDev, type MarianDevRow } from './helpers.ts';

const dev = readDev<MarianDevRow>('tiny-marian-en-de');
// The tests that only translate English to German serve that model alone: each engine (and each replacement
// worker) then loads one model instead of the three core ones.
const EN_DE = oneModelDir('tiny-marian-en-de');

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('worker pool', () => {
  let engine: DragomanEngine;
  beforeAll(async () => {
    engine = await engineOver(EN_DE, { DRAGOMAN_WORKERS: '2', DRAGOMAN_INTRA_OP_THREADS: '1', DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_BEAM: '4' });
  });
  afterAll(() => engine.close());

  it('starts the configured workers', () => {
    expect(engine.stats()).toMatchObject({ workers: 2, workersAlive: 2, workerRestarts: 0 });
  });

  it('fails the request a killed worker held, recovers, and serves the next request', async () => {
    const long = dev.map((d) => d.src); // beam 4 over 500 sentences: long enough to be killed mid-way
    const doomed = engine.translate(long, 'eng_Latn', 'deu_Latn');
    // A batch is on a worker: rows are queued (the engine tokenizes in slices first) and some have left the queue.
    await until(() => engine.stats().queueDepth > 0 && engine.stats().queueDepth < long.length);
    engine.crashWorkerForTest();
    await expect(doomed).rejects.toBeInstanceOf(WorkerDied);
    await until(() => engine.stats().workerRestarts === 1 && engine.stats().workersAlive === 2);
    const next = await engine.translate([dev[0]!.src], 'eng_Latn', 'deu_Latn');
    expect(next.translations).toEqual([dev[0]!.beam4]);
  });
});

describe('a replacement worker that cannot load the models (the folder went away after start)', () => {
  it('is not counted alive, requests fail at once (EngineUnavailable) instead of waiting, and it is retried until the folder is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dragoman-pool-'));
    const link = join(dir, 'tiny-marian-en-de');
    symlinkSync(join(FIXTURES, 'tiny-marian-en-de'), link);
    const engine = await engineOver(dir, { DRAGOMAN_WORKERS: '1', DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_BEAM: '1' });
    const failures: string[] = [];
    engine.events.on('workerLoadFailed', (e: { problem: string }) => failures.push(e.problem));
    try {
      unlinkSync(link);
      engine.crashWorkerForTest();
      await until(() => failures.length > 0);
      expect(failures[0]).toMatch(/tiny-marian-en-de/);
      expect(engine.stats().workersAlive).toBe(0);
      await expect(engine.translate([dev[0]!.src], 'eng_Latn', 'deu_Latn')).rejects.toMatchObject({
        reason: 'modelsUnloadable',
        message: expect.stringMatching(/cannot load its models/),
      });
      symlinkSync(join(FIXTURES, 'tiny-marian-en-de'), link);
      await until(() => engine.stats().workersAlive === 1);
      expect((await engine.translate([dev[0]!.src], 'eng_Latn', 'deu_Latn')).translations).toEqual([dev[0]!.greedy]);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a replacement worker when a model file was replaced after start', () => {
  it('refuses the new file (another model beside the old tokenizer) until the old one is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dragoman-pool-'));
    const model = join(dir, 'tiny-marian-en-de');
    mkdirSync(join(model, 'onnx'), { recursive: true });
    for (const f of readdirSync(join(FIXTURES, 'tiny-marian-en-de'))) {
      if (f !== 'onnx') symlinkSync(join(FIXTURES, 'tiny-marian-en-de', f), join(model, f));
    }
    for (const f of readdirSync(join(FIXTURES, 'tiny-marian-en-de', 'onnx'))) copyFileSync(join(FIXTURES, 'tiny-marian-en-de', 'onnx', f), join(model, 'onnx', f));
    const engine = await engineOver(dir, { DRAGOMAN_WORKERS: '1', DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_BEAM: '1', DRAGOMAN_PRECISION: 'fp32' });
    const failures: string[] = [];
    engine.events.on('workerLoadFailed', (e: { problem: string }) => failures.push(e.problem));
    const decoder = join(model, 'onnx', 'decoder_model_merged.onnx');
    try {
      // `models pull --force` of another model: a new file where the loaded one was.
      renameSync(decoder, `${decoder}.loaded`);
      copyFileSync(join(FIXTURES, 'tiny-marian-de-en', 'onnx', 'decoder_model_merged.onnx'), decoder);
      engine.crashWorkerForTest();
      await until(() => failures.length > 0);
      expect(failures[0]).toMatch(/decoder_model_merged\.onnx: changed since the server started; restart it/);
      await expect(engine.translate([dev[0]!.src], 'eng_Latn', 'deu_Latn')).rejects.toBeInstanceOf(EngineUnavailable);
      renameSync(`${decoder}.loaded`, decoder);
      await until(() => engine.stats().workersAlive === 1);
      expect((await engine.translate([dev[0]!.src], 'eng_Latn', 'deu_Latn')).translations).toEqual([dev[0]!.greedy]);
    } finally {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('closing the engine', () => {
  it('fails what is still queued instead of leaving it hanging', async () => {
    const engine = await engineOver(EN_DE, { DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_BEAM: '4', DRAGOMAN_BATCH_TOKENS: '64' });
    const pending = engine.translate(dev.slice(0, 40).map((d) => d.src), 'eng_Latn', 'deu_Latn');
    const outcome = pending.then(() => 'resolved', (err: unknown) => err);
    await until(() => engine.stats().queueDepth > 0 && engine.stats().queueDepth < 40);
    await engine.close();
    expect(await outcome).toBeInstanceOf(EngineUnavailable);
    expect(await outcome).toMatchObject({ reason: 'shuttingDown', message: expect.stringMatching(/shutting down/) });
  });
});

describe('pool shape', () => {
  it('defaults to one worker per two cores (at most 4) and shares the cores out as threads', () => {
    expect(poolShape({ workers: 0, intraOpThreads: 0 }, 2)).toEqual({ workers: 1, intraOp: 2 });
    expect(poolShape({ workers: 0, intraOpThreads: 0 }, 1)).toEqual({ workers: 1, intraOp: 1 });
    expect(poolShape({ workers: 0, intraOpThreads: 0 }, 16)).toEqual({ workers: 4, intraOp: 4 });
    expect(poolShape({ workers: 2, intraOpThreads: 0 }, 2)).toEqual({ workers: 2, intraOp: 1 });
    expect(poolShape({ workers: 3, intraOpThreads: 5 }, 2)).toEqual({ workers: 3, intraOp: 5 });
  });
});


describe('onnxruntime threads per model', () => {
  const settings = { intraOpThreads: 2, threadsAuto: true, spinning: 'off', poolThreads: 2, skipPasses: [] } as const;

  it('gives a small model one thread when the count is Dragoman\'s choice, and keeps a configured count', () => {
    expect(threadsFor(settings, SMALL_DECODER_BYTES - 1)).toBe(1);
    expect(threadsFor(settings, SMALL_DECODER_BYTES)).toBe(2);
    expect(threadsFor({ ...settings, threadsAuto: false }, 1000)).toBe(2);
  });

  it('reports the threads each loaded model got', async () => {
    const auto = await engineOver(CORE_FIXTURES, { DRAGOMAN_WORKERS: '1' });
    const configured = await engineOver(CORE_FIXTURES, { DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '3' });
    try {
      const small = auto.models().filter((m) => m.status === 'ok');
      expect(small.length).toBeGreaterThan(0);
      for (const m of small) expect(m.threads).toBe(1); // every fixture model is far below SMALL_DECODER_BYTES
      for (const m of configured.models().filter((x) => x.status === 'ok')) expect(m.threads).toBe(3);
    } finally {
      await auto.close();
      await configured.close();
    }
  });
});

describe('spinning', () => {
  const spinOf = (spinning: 'off' | 'run' | 'on' | 'auto') =>
    (sessionOptions({ intraOpThreads: 2, threadsAuto: false, spinning, poolThreads: 2, skipPasses: [] }).extra as { session: Record<string, unknown> }).session;

  it('defaults to auto (spinning within a run while the cores are free), and accepts off / run / on / auto', () => {
    expect(loadConfig({}).spinning).toBe('auto');
    for (const v of ['off', 'run', 'on', 'auto'] as const) expect(loadConfig({ DRAGOMAN_SPINNING: v }).spinning).toBe(v);
    expect(() => loadConfig({ DRAGOMAN_SPINNING: 'fast' })).toThrow(/DRAGOMAN_SPINNING must be one of off, run, on, auto, got "fast"/);
  });

  it('maps each setting to onnxruntime session entries', () => {
    expect(spinOf('off')).toMatchObject({ intra_op: { allow_spinning: '0' }, force_spinning_stop: '0' });
    expect(spinOf('run')).toMatchObject({ intra_op: { allow_spinning: '1' }, force_spinning_stop: '1' });
    expect(spinOf('on')).toMatchObject({ intra_op: { allow_spinning: '1' }, force_spinning_stop: '0' });
    // auto opens its sessions as run (its non-spinning twin as off: contention.test.ts).
    expect(spinOf('auto')).toMatchObject({ intra_op: { allow_spinning: '1' }, force_spinning_stop: '1' });
  });

  it('translates the same with every setting (fp32 tiny model, 2 threads)', async () => {
    const texts = dev.slice(0, 12).map((d) => d.src);
    const results: string[][] = [];
    for (const spinning of ['off', 'run', 'on', 'auto']) {
      const engine = await engineOver(EN_DE, { DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '2', DRAGOMAN_SPINNING: spinning, DRAGOMAN_BEAM: '1', DRAGOMAN_CACHE_SIZE: '0' });
      try {
        results.push((await engine.translate(texts, 'eng_Latn', 'deu_Latn')).translations);
      } finally {
        await engine.close();
      }
    }
    expect(results[0]).toEqual(dev.slice(0, 12).map((d) => d.greedy));
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
    expect(results[3]).toEqual(results[0]);
  });
});
