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
  // ApiError, the one error type the service, glossaries, documents and http share: it imports nothing.
  errors: [],
  languages: [],
  text: [],
  detect: ['languages'],
  // The engine and accounts throw their own errors (engine/errors.ts, accounts/errors.ts); http maps them.
  engine: ['config', 'languages'],
  // The database: connections and the one numbered migration series of every table; the stores sit in their concerns.
  storage: ['config'],
  accounts: ['config', 'storage'],
  service: ['config', 'errors', 'languages', 'engine/types.ts', 'detect/types.ts', 'text/types.ts', 'text/terms.ts', 'text/kept-spans.ts', 'glossaries', 'memories'],
  glossaries: ['config', 'errors', 'languages', 'text/terms.ts', 'text/csv.ts', 'storage', 'accounts/errors.ts'],
  memories: ['config', 'errors', 'languages', 'text/csv.ts', 'text/inline-codes.ts', 'accounts/period.ts', 'storage', 'accounts/errors.ts'],
  observability: ['config', 'languages', 'engine/types.ts'],
  models: ['config', 'languages', 'engine'],
  // Document jobs sit on the service layer (units go through it as format=html) and charge through accounts.
  // A job that fails on an engine refusal (too many glossary terms in a sentence) says why in its error.
  documents: ['config', 'errors', 'storage', 'languages', 'text', 'service', 'accounts', 'engine/types.ts', 'engine/errors.ts'],
  http: [
    'errors',
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
    expect(edges).toContainEqual({ from: 'app.ts', to: 'http/server.ts' });
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
    for (const target of ['http/server.ts', 'accounts/gate.ts', 'errors/api-error.ts']) expect(allows('engine', target), target).toBe(false);
    for (const target of ['http/errors.ts', 'errors/api-error.ts']) expect(allows('accounts', target), target).toBe(false);
    for (const target of ['service/index.ts', 'service/types.ts', 'documents/index.ts']) expect(allows('glossaries', target), target).toBe(false);
    expect(allows('http', 'engine/errors.ts')).toBe(true);
  });

  it('the parts import each other without a cycle (glossaries never import the service that uses them)', () => {
    const graph = new Map<string, Set<string>>();
    for (const { from, to } of edges) {
      const [a, b] = [partOf(from), partOf(to)];
      if (a !== b && ALLOWED[a] !== 'anything') graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
    const cycles: string[] = [];
    const visit = (part: string, path: string[]): void => {
      if (path.includes(part)) return void cycles.push([...path.slice(path.indexOf(part)), part].join(' → '));
      for (const next of graph.get(part) ?? []) visit(next, [...path, part]);
    };
    for (const part of graph.keys()) visit(part, []);
    expect(cycles).toEqual([]);
    expect(graph.get('service')?.has('glossaries')).toBe(true);
    expect(graph.get('glossaries')?.has('service') ?? false).toBe(false);
  });

  it('only src/storage opens database connections or makes tables', () => {
    const opening = /new\s+(?:pg\.)?Pool\s*\(|new\s+Database\s*\(|\bopenDatabase\s*\(|\bCREATE\s+(?:TABLE|INDEX)\b/;
    const outside = sourceFiles(SRC)
      .map((file) => relative(SRC, file).split('\\').join('/'))
      .filter((file) => partOf(file) !== 'storage' && opening.test(readFileSync(join(SRC, file), 'utf8')));
    expect(outside).toEqual([]);
    expect(opening.test('const pool = new pg.Pool({})')).toBe(true);
  });

  it('the service is used through its public calls: no part reads its planners from service.deps', () => {
    const reaching = sourceFiles(SRC)
      .map((file) => relative(SRC, file).split('\\').join('/'))
      .filter((file) => partOf(file) !== 'service' && /\.deps\.planners\b/.test(readFileSync(join(SRC, file), 'utf8')));
    expect(reaching).toEqual([]);
  });

  it('one composition root: src/app.ts builds the parts, http/server.ts only receives them and wires routes', () => {
    const builders = ['accounts/accounts.ts', 'accounts/gate.ts', 'accounts/index.ts', 'service/index.ts', 'documents/index.ts', 'glossaries/index.ts', 'engine/index.ts', 'detect/index.ts'];
    const fromServer = edges.filter((e) => e.from === 'http/server.ts' && builders.includes(e.to));
    expect(fromServer).toEqual([]);
    const fromRoot = edges.filter((e) => e.from === 'app.ts').map((e) => e.to);
    for (const builder of builders) expect(fromRoot, builder).toContain(builder);
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

