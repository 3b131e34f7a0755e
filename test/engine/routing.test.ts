// Routing: direct Marian first, then NLLB, then a pivot through English chaining two models.
import { NoRoute } from '../../src/engine/errors.ts';
import { fromDomainError } from '../../src/http/domain-errors.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { DragomanEngine } from '../../src/engine/index.ts';
import { Router } from '../../src/engine/translate/router.ts';
import { engineOver, linkModel, readDev, tempDir, type MarianDevRow } from './helpers.ts';

describe('Router (pure)', () => {
  const router = new Router([
    { name: 'nllb', family: 'nllb', sources: new Set(['eng_Latn', 'deu_Latn', 'fra_Latn']), targets: new Set(['eng_Latn', 'deu_Latn', 'fra_Latn']) },
    { name: 'opus-mt-en-de', family: 'marian', sources: new Set(['eng_Latn']), targets: new Set(['deu_Latn']) },
  ]);
  it('prefers a Marian pair, then NLLB', () => {
    expect(router.route('eng_Latn', 'deu_Latn')).toEqual(['opus-mt-en-de']);
    expect(router.route('deu_Latn', 'fra_Latn')).toEqual(['nllb']);
  });
  it('has no route for unknown languages, and an empty route for same source and target', () => {
    expect(router.route('eng_Latn', 'jpn_Jpan')).toBeUndefined();
    expect(router.route('deu_Latn', 'deu_Latn')).toEqual([]);
  });
  it('ranks a multi-source model below a one-pair model and above NLLB, whatever their names', () => {
    const three = ['eng_Latn', 'deu_Latn', 'fra_Latn'];
    const r = new Router([
      { name: 'a-nllb', family: 'nllb', sources: new Set(three), targets: new Set(three) },
      { name: 'm-mul-en', family: 'marian', sources: new Set(['deu_Latn', 'fra_Latn']), targets: new Set(['eng_Latn']) },
      { name: 'z-de-en', family: 'marian', sources: new Set(['deu_Latn']), targets: new Set(['eng_Latn']) },
    ]);
    expect(r.route('deu_Latn', 'eng_Latn')).toEqual(['z-de-en']);
    expect(r.route('fra_Latn', 'eng_Latn')).toEqual(['m-mul-en']);
    expect(r.route('eng_Latn', 'fra_Latn')).toEqual(['a-nllb']);
  });
});

describe('routing with tiny-marian-en-de + tiny-nllb', () => {
  const dir = tempDir();
  let engine: DragomanEngine;
  beforeAll(async () => {
    linkModel(join(dir.path, 'tiny-marian-en-de'), 'tiny-marian-en-de');
    linkModel(join(dir.path, 'tiny-nllb'), 'tiny-nllb');
    engine = await engineOver(dir.path);
  });
  afterAll(async () => {
    await engine.close();
    dir.remove();
  });

  it('serves en->de with Marian and de->fr with NLLB', async () => {
    expect((await engine.translate(['A dog runs.'], 'eng_Latn', 'deu_Latn')).route).toEqual(['tiny-marian-en-de']);
    const r = await engine.translate(['Ein Hund läuft.'], 'deu_Latn', 'fra_Latn');
    expect(r.route).toEqual(['tiny-nllb']);
    expect(r.translations[0]!.length).toBeGreaterThan(0);
  });

  it('lists every NLLB language as source and target', () => {
    expect(engine.sourceLanguages().length).toBeGreaterThanOrEqual(195);
    expect(engine.targetLanguages('deu_Latn')).toContain('fra_Latn');
    expect(engine.targetLanguages('deu_Latn')).not.toContain('deu_Latn');
  });
});

describe('pivot through English', () => {
  const dir = tempDir();
  let engine: DragomanEngine;
  const dev = readDev<MarianDevRow>('tiny-marian-de-en');
  beforeAll(async () => {
    linkModel(join(dir.path, 'tiny-marian-en-de'), 'tiny-marian-en-de');
    // A copy of the de->en model declared as a third direction, fr->en.
    linkModel(join(dir.path, 'fr-en-copy'), 'tiny-marian-de-en', { 'dragoman.json': '{"family":"marian","source":"fr","target":"en"}' });
    engine = await engineOver(dir.path, { DRAGOMAN_BEAM: '1' });
  });
  afterAll(async () => {
    await engine.close();
    dir.remove();
  });

  it('serves fr->de by chaining fr->en and en->de, equal to running them one after the other', async () => {
    const src = dev.slice(0, 12).map((d) => d.src);
    expect(engine.route('fra_Latn', 'deu_Latn')).toEqual(['fr-en-copy', 'tiny-marian-en-de']);
    const pivot = await engine.translate(src, 'fra_Latn', 'deu_Latn');
    expect(pivot.route).toEqual(['fr-en-copy', 'tiny-marian-en-de']);
    const english = await engine.translate(src, 'fra_Latn', 'eng_Latn');
    expect(english.route).toEqual(['fr-en-copy']);
    const german = await engine.translate(english.translations, 'eng_Latn', 'deu_Latn');
    expect(pivot.translations).toEqual(german.translations);
    // The first hop is really the de->en model: its output is dev.jsonl's greedy reference.
    expect(english.translations).toEqual(dev.slice(0, 12).map((d) => d.greedy));
  });

  it('refuses a direction with no route (NoRoute, naming the languages; a 400 on the API)', async () => {
    const err = await engine.translate(['x'], 'deu_Latn', 'fra_Latn').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoRoute);
    expect(err).toMatchObject({ source: 'deu_Latn', target: 'fra_Latn', message: expect.stringMatching(/deu_Latn into fra_Latn/) });
    expect(fromDomainError(err)).toMatchObject({ status: 400, type: 'invalid_request' });
  });
});
