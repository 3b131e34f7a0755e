// Every repository path the documentation names exists: a file or folder under src/, scripts/, test/, docs/,
// deploy/ or bin/ written in docs/*.md, README.md or a README.md of src/ (where a folder's README may also name
// its own files by a path relative to it, which is left to its reader). A renamed or removed file shows up here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const TOP = ['src', 'scripts', 'test', 'docs', 'deploy', 'bin'];

/** `src/x/y.ts`-like paths of a text: a known top folder at a word start, then path characters. */
export function repositoryPaths(text: string): string[] {
  const found = new Set<string>();
  const re = new RegExp(`(?<![\\w./-])(?:${TOP.join('|')})/[\\w./-]*`, 'g');
  for (const m of text.matchAll(re)) {
    const path = m[0].replace(/[.,:;-]+$/, '');
    // A wildcard or a placeholder stands for many files, not one to check.
    const after = text[m.index + m[0].length];
    if (after === '*' || after === '{' || after === '<' || after === '$' || path.includes('..')) continue;
    found.add(path);
  }
  return [...found];
}

function readmes(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) readmes(path, out);
    else if (entry.name === 'README.md') out.push(path);
  }
  return out;
}

const documents = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(ROOT, 'docs', f)),
  ...readmes(join(ROOT, 'src')),
];

describe('paths named in the documentation', () => {
  it('finds paths as they are written (the scan itself works)', () => {
    expect(repositoryPaths('see `src/engine/model/load-check.ts`, then test/docs/ and (docs/api.md).')).toEqual([
      'src/engine/model/load-check.ts',
      'test/docs/',
      'docs/api.md',
    ]);
    expect(repositoryPaths('not ../shared/models/x, nor https://example.org/src/a.ts, nor src/**/README.md or src/{a,b}')).toEqual([]);
    expect(documents.length).toBeGreaterThan(30);
    expect(documents.flatMap((file) => repositoryPaths(readFileSync(file, 'utf8'))).length).toBeGreaterThan(100);
  });

  it('every one exists', () => {
    const missing = documents.flatMap((file) =>
      repositoryPaths(readFileSync(file, 'utf8'))
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${relative(ROOT, file)}: ${path}`),
    );
    expect(missing).toEqual([]);
  });
});
