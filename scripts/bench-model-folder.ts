// Which Marian model folder the benchmarks measure (npm run bench, npm run bench:soak): the argument, else
// DRAGOMAN_BENCH_MODEL, else ../shared/models/bench-marian-base, ../bench-models/bench-marian-base, else the tiny
// fixture (numbers then mean little). A folder counts when it holds a config.json.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');

export function benchModelFolder(argument: string | undefined): string {
  const candidates = [argument, process.env.DRAGOMAN_BENCH_MODEL, join(ROOT, '../shared/models/bench-marian-base'),
    join(ROOT, '../bench-models/bench-marian-base')].filter((p): p is string => !!p);
  return candidates.map((p) => resolve(p)).find((p) => existsSync(join(p, 'config.json'))) ??
    join(ROOT, 'test/fixtures/models/tiny-marian-en-de');
}
