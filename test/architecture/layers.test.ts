// The direction of data the folders' READMEs promise (http → service, accounts → engine; languages and detect
// beside; cli and app.ts on top), checked on the import statements themselves so a shortcut cannot creep in.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

// What each top-level part of src/ may import from the others: a folder name allows the whole folder, a path one
// file. A part's own files are always allowed. `cli` and `app.ts` wire everything and may import anything.
const ALLOWED: Record<string, readonly string[] | 'anything'> = {
  'app.ts': 'anything',
  cli: 'anything',
  config: [],
  languages: [],
  text: [],
  detect: ['languages'],
  // The engine and accounts throw their own errors (engine/errors.ts, accounts/errors.ts); http maps them.
  engine: ['config', 'languages'],
  accounts: ['config'],
  service: ['config', 'languages', 'engine/types.ts', 'detect/types.ts', 'text/types.ts', 'text/terms.ts', 'text/kept-spans.ts', 'glossaries', 'memories'],
  glossaries: ['config', 'languages', 'service/errors.ts', 'text/terms.ts', 'accounts/postgres/connection.ts', 'accounts/postgres/unavailable.ts', 'accounts/sqlite/open.ts'],
  memories: ['config', 'languages', 'service/errors.ts', 'accounts/period.ts', 'accounts/postgres/connection.ts', 'accounts/postgres/unavailable.ts', 'accounts/sqlite/open.ts'],
  observability: ['config', 'languages', 'engine/types.ts'],
  models: ['config', 'languages', 'engine'],
  // Document jobs sit on the service layer (units go through it as format=html) and charge through accounts.
  documents: ['config', 'languages', 'text', 'service', 'accounts', 'engine/types.ts'],
  http: [
    'service',
    'accounts',
    'documents',
    'glossaries',
    'memories',
    'config',
    'languages',
    'observability',
    'engine/types.ts',
    'engine/errors.ts',
    'detect/types.ts',
  ],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** Relative specifiers of static imports, re-exports and dynamic imports. */
function importsOf(code: string): string[] {
  const found: string[] = [];
  for (const match of code.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) found.push(match[1]!);
  return found;
}

function partOf(pathInSrc: string): string {
  return pathInSrc.split('/')[0]!;
}

function allows(part: string, target: string): boolean {
  const rule = ALLOWED[part];
  if (rule === undefined) return false;
  if (rule === 'anything') return true;
  return rule.some((allowed) => target === allowed || target.startsWith(`${allowed}/`));
}

const edges = sourceFiles(SRC).flatMap((file) => {
  const from = relative(SRC, file).split('\\').join('/');
  return importsOf(readFileSync(file, 'utf8')).map((specifier) => ({
    from,
    to: normalize(join(dirname(from), specifier)).split('\\').join('/'),
  }));
});

describe('architecture: imports between the parts of src/', () => {
  it('finds the imports it checks (the scan itself works)', () => {
    expect(edges.length).toBeGreaterThan(200);
    expect(edges).toContainEqual({ from: 'http/server.ts', to: 'engine/types.ts' });
  });

  it('every top-level part of src/ has a rule', () => {
    const parts = [...new Set(edges.map((edge) => partOf(edge.from)))];
    expect(parts.filter((part) => !(part in ALLOWED))).toEqual([]);
  });

  it('no part imports what its rule does not allow', () => {
    const violations = edges
      .filter(({ from, to }) => partOf(to) !== partOf(from) && !allows(partOf(from), to))
      .map(({ from, to }) => `${from} → ${to}`);
    expect(violations).toEqual([]);
  });

  it('the rules catch a forbidden import', () => {
    expect(allows('engine', 'http/server.ts')).toBe(false);
    expect(allows('service', 'engine/index.ts')).toBe(false);
    for (const target of ['http/server.ts', 'accounts/gate.ts', 'service/errors.ts']) expect(allows('engine', target), target).toBe(false);
    for (const target of ['http/errors.ts', 'service/errors.ts']) expect(allows('accounts', target), target).toBe(false);
    expect(allows('http', 'engine/errors.ts')).toBe(true);
  });

  it('no catch-all module: no file or folder named utils, helpers, misc or common in src/', () => {
    const names = sourceFiles(SRC).flatMap((file) => relative(SRC, file).split(/[\\/]/));
    expect(names.filter((name) => /^(utils?|helpers?|misc|common)(\.[a-z]+)?$/i.test(name))).toEqual([]);
  });
});

describe('architecture: inside the engine', () => {
  const inEngine = (folder: string) => edges.filter((e) => e.from.startsWith(`engine/${folder}/`) && e.to.startsWith('engine/'));

  it('search sees the decoder through runtime/search-decoder.ts only: no graph variant, no session', () => {
    const seen = inEngine('search');
    expect(seen.some((e) => e.to === 'engine/runtime/search-decoder.ts')).toBe(true);
    const bad = seen.filter(({ to }) => to.startsWith('engine/graph/') || (to.startsWith('engine/runtime/') && to !== 'engine/runtime/search-decoder.ts'));
    expect(bad).toEqual([]);
  });

  it('the graph rewrites and the runtime know nothing of requests: no pool, batching, translate or search', () => {
    const bad = ['graph', 'runtime'].flatMap(inEngine)
      .filter(({ to }) => ['pool/worker', 'batching/', 'translate/', 'search/'].some((p) => to.startsWith(`engine/${p}`)));
    expect(bad).toEqual([]);
  });
});

