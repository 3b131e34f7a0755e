// Models loaded on demand within DRAGOMAN_MODEL_MEMORY, on real fixture models: copies of tiny-marian-de-en installed
// under other language pairs (their folder names), so each copy is its own route and its own load.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.ts';
import { ModelTooLarge, ModelUnavailable } from '../../src/engine/errors.ts';
import { createEngine, type DragomanEngine } from '../../src/engine/index.ts';
import { readModelFolder } from '../../src/engine/model/model-folder.ts';
import { tokenizerOf } from '../../src/engine/translate/model-load.ts';
import { HeapRelease } from '../../src/engine/translate/heap-release.ts';
import { modelCost, releaseBytes, tokenizerCost } from '../../src/engine/translate/resident-models.ts';
import { FIXTURES } from './helpers.ts';

const work = mkdtempSync(join(tmpdir(), 'dragoman-on-demand-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Languages the copies pretend to read (each copy translates German text, whatever its name says). */
const SOURCES = ['fra', 'spa', 'ita', 'por', 'nld'] as const;
const FLORES: Record<string, string> = { fra: 'fra_Latn', spa: 'spa_Latn', ita: 'ita_Latn', por: 'por_Latn', nld: 'nld_Latn' };
const SENTENCE = 'Das Haus ist klein.';

function modelsDir(label: string, sources: readonly string[] = SOURCES): string {
  const dir = join(work, label);
  for (const s of sources) cpSync(join(FIXTURES, 'tiny-marian-de-en'), join(dir, `copy-${s}-en`), { recursive: true });
  return dir;
}

/** What one model copy is estimated to take with one worker. */
async function oneModel(): Promise<number> {
  return modelCost(await readModelFolder(join(FIXTURES, 'tiny-marian-de-en'), 'int8'), 1);
}

let engine: DragomanEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

async function start(dir: string, env: Record<string, string> = {}): Promise<DragomanEngine> {
  engine = await createEngine(loadConfig({
    // A data folder per models folder: the order of use kept there decides the next start's preload.
    DRAGOMAN_MODELS_DIR: dir, DRAGOMAN_DATA_DIR: `${dir}-data`, DRAGOMAN_WORKERS: '1', DRAGOMAN_CACHE_SIZE: '0', ...env,
  }));
  return engine;
}

describe('models on demand', () => {
  it('keeps within the budget: the least recently used model is unloaded, and every copy still translates the same', async () => {
    const e = await start(modelsDir('evict'), { DRAGOMAN_MODEL_MEMORY: String(2 * (await oneModel())) });
    // Preloaded: the models that fit, in name order.
    expect(e.models().filter((m) => m.loaded).map((m) => m.name)).toEqual(['copy-fra-en', 'copy-ita-en']);
    const outputs: string[] = [];
    for (const s of SOURCES) {
      const r = await e.translate([SENTENCE], FLORES[s]!, 'eng_Latn');
      expect(r.route).toEqual([`copy-${s}-en`]);
      outputs.push(r.translations[0]!);
      const stats = e.modelStats();
      expect(stats.loaded).toBeLessThanOrEqual(2);
      expect(stats.residentBytes).toBeLessThanOrEqual(stats.budgetBytes!);
    }
    // Same files, same output, whichever copy ran and however often the budget forced a reload.
    expect(new Set(outputs).size).toBe(1);
    expect(outputs[0]).not.toBe('');
    const stats = e.modelStats();
    expect(stats.installed).toBe(5);
    // fra and ita at start; fra served loaded; spa evicts ita (never used), ita evicts fra, por spa, nld ita.
    expect(stats.loads).toBe(6);
    expect(stats.evictions).toBe(4);
    expect(stats.loadSeconds).toBeGreaterThan(0);
    // The most recently used two stay.
    expect(e.models().filter((m) => m.loaded).map((m) => m.name).sort()).toEqual(['copy-nld-en', 'copy-por-en']);
    // Used again, an evicted model loads again.
    await e.translate([SENTENCE], 'fra_Latn', 'eng_Latn');
    expect(e.modelStats().loads).toBe(7);
    expect(e.models().find((m) => m.name === 'copy-fra-en')!.loaded).toBe(true);
    // Each model's share of the budget (its estimate while loaded) and the requests it served, across its reloads.
    const cost = await oneModel();
    expect(e.models().map((m) => [m.name, m.loaded, m.memoryBytes, m.requests])).toEqual([
      ['copy-fra-en', true, cost, 2], ['copy-ita-en', false, 0, 1], ['copy-nld-en', true, cost, 1],
      ['copy-por-en', false, 0, 1], ['copy-spa-en', false, 0, 1],
    ]);
    expect(e.models().reduce((sum, m) => sum + m.memoryBytes!, 0)).toBe(e.modelStats().residentBytes);
  });

  it('a model loaded again gets the tokenizer of its last load back while anything still holds it', async () => {
    const folder = await readModelFolder(join(FIXTURES, 'tiny-marian-de-en'), 'int8');
    const first = await tokenizerOf(folder);
    expect(await tokenizerOf(folder)).toBe(first);
    // Another folder object (the files replaced under the same name) reads its own.
    const again = await readModelFolder(join(FIXTURES, 'tiny-marian-de-en'), 'int8');
    expect(await tokenizerOf(again)).not.toBe(first);
  });

  it('unloads that let go of an eighth of the budget in tokenizers (4 MiB at least) run one full collection of the main thread heap', async () => {
    const budget = await oneModel();
    const e = await start(modelsDir('collect', ['fra', 'spa']), { DRAGOMAN_MODEL_MEMORY: String(budget) });
    const perUnload = tokenizerCost(await readModelFolder(join(FIXTURES, 'tiny-marian-de-en'), 'int8'));
    expect(releaseBytes(budget)).toBe(4 * 2 ** 20);
    expect(releaseBytes(2 ** 30)).toBe(32 * 2 ** 20);
    const unloadsPerCollection = Math.ceil(releaseBytes(budget) / perUnload);
    expect(unloadsPerCollection).toBeGreaterThan(1);
    // The two copies take turns in a budget of one: every request but the first evicts the other copy.
    for (let i = 0; e.modelStats().evictions < unloadsPerCollection - 1; i++) await e.translate([SENTENCE], i % 2 ? 'fra_Latn' : 'spa_Latn', 'eng_Latn');
    expect(e.modelStats().collections).toBe(0);
    await e.translate([SENTENCE], e.models().find((m) => m.loaded)!.name === 'copy-fra-en' ? 'spa_Latn' : 'fra_Latn', 'eng_Latn');
    expect(e.modelStats()).toMatchObject({ evictions: unloadsPerCollection, collections: 1 });
  });

  it('a full collection takes what no one holds any more', async () => {
    const release = new HeapRelease(100);
    const made = () => new WeakRef({ vocabulary: new Array(10_000).fill('piece') });
    const dead = made();
    // A WeakRef's target lives to the end of the task that made it.
    await new Promise((r) => setImmediate(r));
    release.note(99); // below the threshold: no collection
    expect(release.collections).toBe(0);
    expect(dead.deref()).toBeDefined();
    await new Promise((r) => setImmediate(r)); // deref() too keeps it to the end of its task
    release.note(1);
    expect(release.collections).toBe(1);
    expect(dead.deref()).toBeUndefined();
  });

  it('without DRAGOMAN_PRELOAD, a start preloads the models used most recently before it, then by name', async () => {
    const dir = modelsDir('recent', ['fra', 'spa', 'ita']);
    const one = await oneModel();
    const first = await start(dir, { DRAGOMAN_MODEL_MEMORY: String(2 * one) });
    expect(first.models().filter((m) => m.loaded).map((m) => m.name)).toEqual(['copy-fra-en', 'copy-ita-en']);
    await first.translate([SENTENCE], 'ita_Latn', 'eng_Latn');
    await first.translate([SENTENCE], 'spa_Latn', 'eng_Latn');
    await first.close();
    const again = await start(dir, { DRAGOMAN_MODEL_MEMORY: String(2 * one) });
    expect(again.models().filter((m) => m.loaded).map((m) => m.name).sort()).toEqual(['copy-ita-en', 'copy-spa-en']);
    expect(again.modelStats().loads).toBe(2);
  });

  it('concurrent first requests for an unloaded model wait for one load', async () => {
    const e = await start(modelsDir('concurrent', ['fra', 'spa']), { DRAGOMAN_MODEL_MEMORY: String(await oneModel()), DRAGOMAN_PRELOAD: '' });
    expect(e.modelStats().loaded).toBe(1); // copy-fra-en fits; copy-spa-en does not beside it
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => e.translate([`${SENTENCE} ${i}`], 'spa_Latn', 'eng_Latn')));
    for (const r of results) expect(r.route).toEqual(['copy-spa-en']);
    expect(e.modelStats()).toMatchObject({ loads: 2, evictions: 1, loaded: 1 });
  });

  it('DRAGOMAN_PRELOAD keeps its models loaded; a model that alone passes the budget is refused with the reason', async () => {
    const one = await oneModel();
    const e = await start(modelsDir('kept', ['fra', 'spa', 'ita']), { DRAGOMAN_MODEL_MEMORY: String(2 * one), DRAGOMAN_PRELOAD: 'copy-spa-en' });
    expect(e.models().filter((m) => m.loaded).map((m) => m.name)).toEqual(['copy-spa-en']);
    await e.translate([SENTENCE], 'fra_Latn', 'eng_Latn');
    await e.translate([SENTENCE], 'ita_Latn', 'eng_Latn');
    await e.translate([SENTENCE], 'fra_Latn', 'eng_Latn');
    expect(e.models().find((m) => m.name === 'copy-spa-en')!.loaded).toBe(true);
    expect(e.modelStats().evictions).toBe(2);
    await e.close();

    const small = await start(modelsDir('small', ['fra']), { DRAGOMAN_MODEL_MEMORY: String(Math.floor(one / 2)) });
    expect(small.modelStats().loaded).toBe(0);
    const err = await small.translate([SENTENCE], 'fra_Latn', 'eng_Latn').catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ModelTooLarge);
    expect((err as Error).message).toMatch(/Model copy-fra-en needs about [\d.]+ MiB of memory, more than DRAGOMAN_MODEL_MEMORY allows/);
  });

  it('a model installed or removed while serving changes the routes at the next look; a removed model is refused as retryable', async () => {
    const dir = modelsDir('live', ['fra']);
    const e = await start(dir);
    expect(e.sourceLanguages()).toEqual(['fra_Latn']);
    cpSync(join(FIXTURES, 'tiny-marian-de-en'), join(dir, 'copy-spa-en'), { recursive: true });
    // Files written just now: taken once they have settled (a copy may still be under way).
    await e.rescanModels();
    await new Promise((r) => setTimeout(r, 1_200));
    await e.rescanModels();
    expect(e.sourceLanguages().sort()).toEqual(['fra_Latn', 'spa_Latn']);
    const r = await e.translate([SENTENCE], 'spa_Latn', 'eng_Latn');
    expect(r.route).toEqual(['copy-spa-en']);
    expect(r.translations[0]).toBe((await e.translate([SENTENCE], 'fra_Latn', 'eng_Latn')).translations[0]);

    // Removed while a request is under way on it: that request finishes; the routes drop the model.
    const running = e.translate(Array.from({ length: 16 }, (_, i) => `${SENTENCE} ${i}`), 'fra_Latn', 'eng_Latn');
    rmSync(join(dir, 'copy-fra-en'), { recursive: true, force: true });
    await e.rescanModels();
    expect((await running).translations).toHaveLength(16);
    expect(e.sourceLanguages()).toEqual(['spa_Latn']);
    expect(e.route('fra_Latn', 'eng_Latn')).toBeUndefined();
    expect(e.models().map((m) => m.name)).toEqual(['copy-spa-en']);
  });

  it('a request waiting for a model removed meanwhile fails with ModelUnavailable naming it', async () => {
    const dir = modelsDir('removed-waiting', ['fra', 'spa']);
    const one = await oneModel();
    const e = await start(dir, { DRAGOMAN_MODEL_MEMORY: String(one) });
    // copy-fra-en fills the budget while a long request holds it: the request for copy-spa-en waits for that memory.
    const long = Array.from({ length: 96 }, (_, i) => `${SENTENCE} Der Garten ist groß und das Haus ist alt, sagt sie ${i}.`);
    const holding = e.translate(long, 'fra_Latn', 'eng_Latn');
    await new Promise((r) => setTimeout(r, 20));
    const waiting = e.translate([SENTENCE], 'spa_Latn', 'eng_Latn').catch((x: unknown) => x);
    rmSync(join(dir, 'copy-spa-en'), { recursive: true, force: true });
    await e.rescanModels();
    const err = await waiting;
    expect(err).toBeInstanceOf(ModelUnavailable);
    expect((err as ModelUnavailable).message).toBe('Model copy-spa-en was removed from this server while the request waited for it.');
    expect((await holding).translations).toHaveLength(96);
    expect(e.modelStats().loads).toBe(1);

    // Beside a model DRAGOMAN_PRELOAD keeps, a model that cannot fit is refused at once rather than waiting forever.
    await e.close();
    const kept = await start(modelsDir('kept-full', ['fra', 'spa']), { DRAGOMAN_MODEL_MEMORY: String(one), DRAGOMAN_PRELOAD: 'copy-fra-en' });
    const refused = await kept.translate([SENTENCE], 'spa_Latn', 'eng_Latn').catch((x: unknown) => x);
    expect(refused).toBeInstanceOf(ModelTooLarge);
    expect((refused as Error).message).toContain('of which the models DRAGOMAN_PRELOAD keeps loaded leave 0.0 MiB');
  });
});
