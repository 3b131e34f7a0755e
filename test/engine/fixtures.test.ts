// The engine's fixture models are copies of ../shared/models (the folders whose READMEs document how the
// references were made). Skipped only when ../shared is not beside the clone; every real behaviour test runs anyway.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from './helpers.ts';

const SHARED = resolve(import.meta.dirname, '../../../shared/models');

function files(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix)).flatMap((name) => {
    const rel = join(prefix, name);
    return statSync(join(dir, rel)).isDirectory() ? files(dir, rel) : [rel];
  });
}

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.skipIf(!existsSync(SHARED))('fixture models equal ../shared/models', () => {
  for (const model of ['tiny-marian-en-de', 'tiny-marian-de-en', 'tiny-nllb']) {
    it(model, () => {
      for (const f of files(join(FIXTURES, model))) {
        expect(sha(join(FIXTURES, model, f)), f).toBe(sha(join(SHARED, model, f)));
      }
    });
  }
});
