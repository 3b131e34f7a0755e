// The README is a user guide: short enough to read in ten minutes, every reference page it names present, and the
// repository speaks of the product, never of how it was developed (git history keeps that).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const README = join(ROOT, 'README.md');

// Words that tell a development story rather than describe the product: numbered milestones and passes, reviews,
// tracker numbers. Not those: npm's `--no-` flag of that name, and Linux's header and `*_ARCH_*` constants of that
// name (the CPU architecture a seccomp filter checks). Built from pieces so this file does not match itself.
const STORY = [
  new RegExp('\\bstops? [0-9]+(?![0-9.]|\\s*(?:ms|s|µs|seconds?|minutes?|steps?|tokens?|rows?|%))', 'i'),
  new RegExp('\\bissues? #?[0-9]+', 'i'),
  // The review sense; the product's audit log (`audit_log`, `dragoman au` + `dit`, its file and command name) is not it.
  new RegExp('(?<!--no-|linux/|dragoman |commands/)\\bau' + 'dit(?!_ARCH|[ _-]?log|\\.ts|: \\{|\')', 'i'),
  new RegExp('\\b(?:third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|[0-9]+(?:st|nd|rd|th)) pa' + 'ss', 'i'),
];

function storyWords(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const re of STORY) {
      const m = re.exec(line);
      if (m) found.push(`${i + 1}: ${m[0]}`);
    }
  });
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const headings = readFileSync(file, 'utf8').split('\n').filter((l) => /^#{1,6} /.test(l));
  return new Set(headings.map((h) => anchor(h.replace(/^#+ /, ''))));
}

/** Relative links of a markdown file (`[text](path#anchor)`), web addresses left out. */
function links(file: string): { target: string; hash: string | undefined }[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((l) => !/^[a-z]+:/i.test(l))
    .map((l) => {
      const [path, hash] = l.split('#');
      return { target: path ? resolve(dirname(file), path) : file, hash };
    });
}

const DOCS = join(ROOT, 'docs');
const docPages = () => readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => join(DOCS, f));

// Every text file of the repository that people read or run: code, tests, scripts, documentation, deployment files.
// Data is left out (test fixtures, training and test corpora, lock file), and so is what is built or installed.
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', 'data', 'test-results', 'coverage', 'bench-models', '.tmp', 'build']);
const TEXT = /\.(ts|mts|mjs|js|md|yaml|yml|sh|c|sql|html|css|json)$|^(Dockerfile|run)$/;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const rel = relative(ROOT, path);
    if (statSync(path).isDirectory()) {
      if (!SKIP_DIRS.has(name) && rel !== join('test', 'fixtures') && rel !== 'models') sourceFiles(path, out);
    } else if (TEXT.test(name) && name !== 'package-lock.json') out.push(path);
  }
  return out;
}

describe('README.md, the user guide', () => {
  it('tells story words from product words (the checks below can fail)', () => {
    const story = ['since st' + 'op 28 it runs', 'the elev' + 'enth pass', 'an outside au' + 'dit found', 'is' + 'sue 3 says', '(see the 4th pa' + 'ss)'];
    for (const line of story) expect(storyWords(line), line).toHaveLength(1);
    const product = ['npm ci --no-au' + 'dit --no-fund', 'the au' + 'dit log of key operations', 'dragoman au' + 'dit --since 2026-01-01', 'the graph pa' + 'sses run in order', 'a sec' + 'ond pa' + 'ss over the file', 'it st' + 'ops 16 steps later', 'open issues on the tracker'];
    for (const line of product) expect(storyWords(line), line).toEqual([]);
  });

  it('is at most 25 KB', () => {
    expect(statSync(README).size).toBeLessThanOrEqual(25_000);
  });

  it('leads from nothing to a first translation before anything else: two commands, then the rest', () => {
    const text = readFileSync(README, 'utf8');
    const sections = text.split('\n').filter((l) => l.startsWith('## ')).map((l) => l.slice(3));
    expect(sections.slice(0, 3)).toEqual(['Quick start', 'API', 'Models']);
    const quickStart = text.slice(text.indexOf('## Quick start'), text.indexOf('## API'));
    // The first block is the two commands; then the printed key, a translation, real models, more keys.
    expect(/```sh\n([^`]*)```/.exec(quickStart)![1]!.split('\n').filter(Boolean).map((l) => l.split('#')[0]!.trim())).toEqual(['npm ci', 'npm start']);
    const steps = ['npm ci', 'npm start', 'dk_', '/v1/translate', 'models pull', 'keys create'].map((s) => quickStart.indexOf(s));
    expect(steps.every((at) => at >= 0)).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
  });

  it('links only to pages and headings that exist, and links every page of docs/', () => {
    const broken: string[] = [];
    for (const file of [README, ...docPages()]) {
      for (const { target, hash } of links(file)) {
        if (!existsSync(target)) broken.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}`);
        else if (hash !== undefined && target.endsWith('.md') && !anchorsOf(target).has(hash)) {
          broken.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}#${hash}`);
        }
      }
    }
    expect(broken).toEqual([]);
    const linked = new Set(links(README).map((l) => l.target));
    expect(docPages().filter((page) => !linked.has(page)).map((page) => relative(ROOT, page))).toEqual([]);
  });

  it('and every page of docs/ speak of the product, not of its development', () => {
    const found = [README, ...docPages()].flatMap((file) => storyWords(readFileSync(file, 'utf8')).map((w) => `${relative(ROOT, file)}:${w}`));
    expect(found).toEqual([]);
  });
});

describe('the repository', () => {
  it('speaks of the product, not of its development, in code, comments, tests, scripts and documents', () => {
    const files = sourceFiles(ROOT);
    // The scan reaches the places that matter (a wrong skip list would pass trivially).
    for (const must of ['src/app.ts', 'test/docs/readme.test.ts', 'scripts/bench-engine.ts', 'Dockerfile', 'README.md']) {
      expect(files).toContain(join(ROOT, must));
    }
    const found = files.flatMap((file) => storyWords(readFileSync(file, 'utf8')).map((w) => `${relative(ROOT, file)}:${w}`));
    expect(found).toEqual([]);
  });
});
