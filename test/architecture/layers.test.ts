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

// The engine's own order, lowest first: a file imports only from its own layer or lower ones, so data flows one way
// (translate → batching → pool → search → runtime → search-graphs → graph → model) and the vocabulary sits at the bottom.
// A folder name stands for the folder, a path for one file.
const ENGINE_LAYERS: readonly (readonly string[])[] = [
  ['types.ts', 'errors.ts', 'settings.ts'],
  ['model'],
  ['graph'],
  ['search-graphs'],
  ['runtime'],
  ['search'],
  ['pool'],
  ['batching'],
  ['translate'],
  ['index.ts'],
];

/** The layer of a path under src/engine/ (its position in ENGINE_LAYERS), or -1 when no layer names it. */
function engineLayer(pathInSrc: string): number {
  const inEngine = pathInSrc.slice('engine/'.length);
  return ENGINE_LAYERS.findIndex((layer) => layer.some((part) => inEngine === part || inEngine.startsWith(`${part}/`)));
}

/** Every import circle among the files of `edges` (each once, as the files of a strongly connected component). */
function circles(links: readonly { from: string; to: string }[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of links) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1 || (next.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('architecture: inside the engine', () => {
  const inEngine = (folder: string) => edges.filter((e) => e.from.startsWith(`engine/${folder}/`) && e.to.startsWith('engine/'));
  const engineEdges = edges.filter((e) => e.from.startsWith('engine/') && e.to.startsWith('engine/'));

  it('every file of the engine is in a layer', () => {
    const files = sourceFiles(join(SRC, 'engine')).map((file) => relative(SRC, file).split('\\').join('/'));
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((file) => engineLayer(file) < 0)).toEqual([]);
  });

  it('a file imports only from its own layer or lower ones', () => {
    expect(engineEdges.length).toBeGreaterThan(150);
    const upward = engineEdges
      .filter(({ from, to }) => engineLayer(to) > engineLayer(from))
      .map(({ from, to }) => `${from} → ${to}`);
    expect(upward).toEqual([]);
  });

  it('the layer rule catches an import that runs back up', () => {
    expect(engineLayer('engine/search/greedy.ts')).toBeLessThan(engineLayer('engine/pool/protocol.ts'));
    expect(engineLayer('engine/graph/passes.ts')).toBeLessThan(engineLayer('engine/search-graphs/greedy-loop.ts'));
    expect(engineLayer('engine/model/model-folder.ts')).toBeLessThan(engineLayer('engine/graph/passes.ts'));
    expect(engineLayer('engine/types.ts')).toBe(0);
    expect(engineLayer('engine/index.ts')).toBe(ENGINE_LAYERS.length - 1);
  });

  it('no import circle in src/engine, between files of one folder or of several', () => {
    expect(circles(engineEdges)).toEqual([]);
    // The finder finds one: a → b → c → a, and a file importing itself.
    const ring = [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'a' }, { from: 'c', to: 'd' }, { from: 'e', to: 'e' }];
    expect(circles(ring)).toEqual([['a', 'b', 'c'], ['e']]);
  });

  it('search sees the decoder through runtime/search-decoder.ts only: no graph, no search graph, no session', () => {
    const seen = inEngine('search');
    expect(seen.some((e) => e.to === 'engine/runtime/search-decoder.ts')).toBe(true);
    const bad = seen.filter(({ to }) => ['graph/', 'search-graphs/'].some((p) => to.startsWith(`engine/${p}`))
      || (to.startsWith('engine/runtime/') && to !== 'engine/runtime/search-decoder.ts'));
    expect(bad).toEqual([]);
  });

  it("only the pool and its direct users read the worker protocol (the engine's vocabulary lives elsewhere)", () => {
    const readers = [...new Set(edges.filter((e) => e.to === 'engine/pool/protocol.ts').map((e) => e.from))].sort();
    expect(readers.filter((from) => !from.startsWith('engine/pool/') && from !== 'engine/translate/model-load.ts')).toEqual([]);
    expect(readers).toContain('engine/pool/worker.ts');
  });

  it("graph/ is the rewrites that keep the model's meaning: it builds no search, and runs nothing of the runtime", () => {
    const bad = inEngine('graph').filter(({ to }) => !['engine/graph/', 'engine/model/'].some((p) => to.startsWith(p)));
    expect(bad).toEqual([]);
  });
});
