// Which Marian model folder the benchmarks measure (npm run bench, npm run bench:soak): the argument, else
// DRAGOMAN_BENCH_MODEL, else ../shared/models/bench-marian-base, ../bench-models/bench-marian-base, else the tiny
// fixture (numbers then mean little). A folder counts when it holds a config.json.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');

export function benchModelFolder(argument: string | undefined): string {
  const candidates = [argument, process.env.DRAGOMAN_BENCH_MODEL, join(ROOT, '../shared/models/bench-marian-base'),
    join(ROOT, '../bench-models/bench-marian-base')].filter((p): p is string => !!p);
  return candidates.map((p) => resolve(p)).find((p) => existsSync(join(p, 'config.json'))) ??
    join(ROOT, 'test/fixtures/models/tiny-marian-en-de');
}

/**
 * A models folder holding `folder` as `name` (its files linked, not copied), with a dragoman.json declaration when
 * the folder has none (a benchmark model says nothing of its languages).
 */
export function modelsDir(folder: string, name: string, declaration?: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'dragoman-bench-'));
  const target = join(dir, name);
  mkdirSync(target);
  for (const f of readdirSync(folder)) symlinkSync(join(folder, f), join(target, f));
  if (declaration && !existsSync(join(folder, 'dragoman.json'))) writeFileSync(join(target, 'dragoman.json'), JSON.stringify(declaration));
  return dir;
}
