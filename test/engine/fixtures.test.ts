// The fixture models: what test/fixtures/models holds, its size budget, and the three core models being copies of
// ../shared/models (the folders whose READMEs document how the references were made; that part is skipped only when
// ../shared is not beside the clone, every real behaviour test runs anyway).
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scanModels } from '../../src/engine/model/registry.ts';
import { CORE_MODELS, FAMILY_MODELS, isSeq2SeqFixture, LLM_GENAI_MODELS, LLM_MODELS } from '../fixture-models.ts';
import { FIXTURES } from './helpers.ts';

/** What `du -sb` counts: the apparent size of every file, link and folder, the folder itself included. */
function apparentBytes(path: string): number {
  const s = lstatSync(path);
  return s.size + (s.isDirectory() ? readdirSync(path).reduce((n, f) => n + apparentBytes(join(path, f)), 0) : 0);
}

describe('test/fixtures', () => {
  it('stays under 60,000,000 bytes (du -sb), so a clone stays small', () => {
    const bytes = apparentBytes(resolve(import.meta.dirname, '../fixtures'));
    console.log(`test/fixtures: ${bytes} bytes`);
    expect(bytes).toBeLessThan(60_000_000);
  });

  it('keeps each decoder-only translator under 2,000,000 bytes', () => {
    for (const m of [...LLM_MODELS, ...LLM_GENAI_MODELS]) expect(apparentBytes(join(FIXTURES, m)), m).toBeLessThan(2_000_000);
  });

  it('holds the three core models and one of each further encoder-decoder family, every one loading', async () => {
    const models = (await scanModels(FIXTURES, 'int8')).filter((m) => isSeq2SeqFixture(m.name));
    expect(models.map((m) => m.name).sort()).toEqual([...CORE_MODELS, ...FAMILY_MODELS].sort());
    const family = Object.fromEntries(models.map((m) => [m.name, m.family]));
    expect(family).toEqual({
      'tiny-marian-en-de': 'marian', 'tiny-marian-de-en': 'marian', 'tiny-nllb': 'nllb', 'opus-mt-tiny-en-mul': 'marian',
      'opus-mt-tiny-mul-en': 'marian', 'tiny-m2m100': 'm2m100', 'tiny-mbart50': 'mbart50',
    });
    for (const m of models) expect(m, m.name).toMatchObject({ status: 'ok', precision: 'int8' });
  });
});

const SHARED = resolve(import.meta.dirname, '../../../shared/models');

function files(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix)).flatMap((name) => {
    const rel = join(prefix, name);
    return statSync(join(dir, rel)).isDirectory() ? files(dir, rel) : [rel];
  });
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.skipIf(!existsSync(SHARED))('fixture models equal ../shared/models', () => {
  for (const model of CORE_MODELS) {
    it(model, () => {
      for (const f of files(join(FIXTURES, model))) {
        expect(sha(join(FIXTURES, model, f)), f).toBe(sha(join(SHARED, model, f)));
      }
    });
  }
});
