// `dragoman memories` and `dragoman translate --memory`, run as the real command (bin/dragoman.js) on a real SQLite
// file with the fixture models: a TMX imported, listed, its segments filtered, exported and read back equal, used
// for text (exact sentences as stored, the rest from the model), deleted; another key sees none of it.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneModelDir, TEST_GRAPH_CACHE } from '../fixture-models.ts';
import { BASIC, EXACT, FUZZY_STORED, SECOND } from '../memories/fixtures.ts';

const BIN = join(resolve(import.meta.dirname, '../..'), 'bin', 'dragoman.js');
const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'dragoman-memories-cli-'));
const env = {
  ...process.env,
  DRAGOMAN_MODELS_DIR: oneModelDir('tiny-marian-en-de'), DRAGOMAN_GRAPH_CACHE_DIR: TEST_GRAPH_CACHE,
  DRAGOMAN_DATA_DIR: join(dir, 'data'),
  DRAGOMAN_WORKERS: '1',
  DRAGOMAN_INTRA_OP_THREADS: '1',
  DRAGOMAN_LOG_LEVEL: 'warn',
};

/** The command's exit code, standard output and standard error (a failure is an answer, not a throw). */
async function dragoman(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  if (stdin === undefined) {
    return exec(process.execPath, [BIN, ...args], { env, timeout: 120_000 })
      .then((r) => ({ code: 0, out: r.stdout, err: r.stderr }))
      .catch((e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout, err: e.stderr }));
  }
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  child.stdin.end(stdin);
  const code = await new Promise<number>((r) => child.once('close', (c) => r(c ?? -1)));
  return { code, out, err };
}

let key: string;
let other: string;

beforeAll(async () => {
  key = JSON.parse((await dragoman(['keys', 'create', '--plan', 'pro', '--json'])).out).id;
  other = JSON.parse((await dragoman(['keys', 'create', '--plan', 'pro', '--json'])).out).id;
  writeFileSync(join(dir, 'basic.tmx'), BASIC);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dragoman memories', () => {
  it('imports a TMX, lists it, filters its segments, exports it equal, and only for its key', async () => {
    const imported = await dragoman(['memories', 'import', join(dir, 'basic.tmx'), '--key', key, '--name', 'Basic']);
    expect(imported.code, imported.err).toBe(0);
    expect(imported.out).toMatch(/Imported 3 segments \(0 units skipped\) into memory [0-9a-f-]{36} "Basic" \(en → de, 3 segments\)/);
    const list = JSON.parse((await dragoman(['memories', 'list', '--key', key, '--json'])).out);
    expect(list).toMatchObject([{ name: 'Basic', source: 'en', targets: ['de'], segmentCount: 3 }]);
    expect(JSON.parse((await dragoman(['memories', 'list', '--key', other, '--json'])).out)).toEqual([]);
    const notTheirs = await dragoman(['memories', 'export', 'Basic', '--key', other]);
    expect(notTheirs.code).toBe(1);
    expect(notTheirs.err).toContain('the key has no memory "Basic"');

    const page = JSON.parse((await dragoman(['memories', 'segments', 'Basic', '--key', key, '--text', 'program', '--json'])).out);
    expect(page.segments.map((s: { source: string }) => s.source)).toEqual([SECOND.source]);

    const exported = await dragoman(['memories', 'export', list[0].id, '--key', key, '-o', join(dir, 'out.tmx')]);
    expect(exported.code, exported.err).toBe(0);
    // Read back as a second memory: the same segments, markup included.
    const again = await dragoman(['memories', 'import', join(dir, 'out.tmx'), '--key', key, '--name', 'Again']);
    expect(again.code, again.err).toBe(0);
    const segs = async (name: string) => JSON.parse((await dragoman(['memories', 'segments', name, '--key', key, '--json'])).out).segments
      .map(({ source, target, targetLanguage, status }: Record<string, string>) => ({ source, target, targetLanguage, status }));
    expect(await segs('Again')).toEqual(await segs('Basic'));
    expect(readFileSync(join(dir, 'out.tmx'), 'utf8')).toContain('<bpt i="1" x="1">&lt;b&gt;</bpt>');

    const deleted = await dragoman(['memories', 'delete', 'Again', '--key', key]);
    expect(deleted.code, deleted.err).toBe(0);
    expect(JSON.parse((await dragoman(['memories', 'list', '--key', key, '--json'])).out).map((m: { name: string }) => m.name)).toEqual(['Basic']);
  }, 180_000);

  it('refuses a bad file by line and reason, an unknown key, and a missing --key', async () => {
    writeFileSync(join(dir, 'bad.tmx'), '<?xml version="1.0"?>\n<tmx version="1.4"><header srclang="en"/><body>\n<tu><tuv xml:lang="en"><seg>a</seg></tuv>\n</body></tmx>\n');
    const bad = await dragoman(['memories', 'import', join(dir, 'bad.tmx'), '--key', key]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('The TMX file cannot be imported. Line 4: not well-formed XML');
    expect((await dragoman(['memories', 'list', '--key', 'nope'])).err).toContain('no key with ID "nope"');
    const missing = await dragoman(['memories', 'list']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--key is required');
  }, 60_000);
});

describe('dragoman translate --memory', () => {
  it('takes the exact sentences from the memory as stored and the others from the model, and reports fuzzy matches', async () => {
    const near = 'The weather is very nice today and we are going to the beach.';
    const fresh = 'The dog is in the garden.';
    const plain = await dragoman(['translate', '--from', 'en', '--to', 'de'], `${fresh} ${near}`);
    expect(plain.code, plain.err).toBe(0);
    const r = await dragoman(['translate', '--to', 'de', '--memory', 'Basic', '--key', key, '--memory-threshold', '90'], `${EXACT.source} ${fresh} ${near}`);
    expect(r.code, r.err).toBe(0);
    expect(r.out.startsWith(EXACT.target + ' ')).toBe(true);
    // The sentences the memory does not hold are the model's, as without a memory.
    expect(r.out.slice(EXACT.target.length + 1).trim()).toBe(plain.out.trim());
    expect(r.err).toContain('memory "Basic": 1 of 3 sentences as stored');
    expect(r.err).toContain(`92%  ${near}  ~  ${FUZZY_STORED.source}  →  ${FUZZY_STORED.target}`);

    const otherKey = await dragoman(['translate', '--to', 'de', '--memory', 'Basic', '--key', other], EXACT.source);
    expect(otherKey.code).toBe(1);
    expect(otherKey.err).toContain('the key has no memory "Basic"');
    const noKey = await dragoman(['translate', '--to', 'de', '--memory', 'Basic'], EXACT.source);
    expect(noKey.code).toBe(2);
    expect(noKey.err).toContain('--memory needs --key');
  }, 240_000);

  it('translates files with the memory as a document job does: the stored sentence as is, PO entries flagged by origin', async () => {
    const fresh = 'The dog is in the garden.';
    writeFileSync(join(dir, 'notes.txt'), `${EXACT.source}\n\n${fresh}\n`);
    writeFileSync(join(dir, 'app.po'), `msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "${EXACT.source}"\nmsgstr ""\n\nmsgid "${fresh}"\nmsgstr ""\n`);
    const plain = await dragoman(['translate', '--from', 'en', '--to', 'de'], fresh);
    const r = await dragoman(['translate', '--to', 'de', '--memory', 'Basic', '--key', key, join(dir, 'notes.txt'), join(dir, 'app.po')]);
    expect(r.code, r.err).toBe(0);
    const txt = readFileSync(join(dir, 'notes.de.txt'), 'utf8').split('\n\n');
    expect(txt[0]).toBe(EXACT.target);
    expect(txt[1]!.trim()).toBe(plain.out.trim());
    // The memory's entry is final (no fuzzy flag); the model's is marked for review.
    const po = readFileSync(join(dir, 'app.de.po'), 'utf8');
    const entry = (id: string) => po.split('\n\n').find((e) => e.includes(`msgid "${id}"`))!;
    expect(entry(EXACT.source)).toContain(`msgstr "${EXACT.target}"`);
    expect(entry(EXACT.source)).not.toContain('fuzzy');
    expect(entry(fresh)).toContain('#, fuzzy');
    const otherKey = await dragoman(['translate', '--to', 'de', '--memory', 'Basic', '--key', other, join(dir, 'notes.txt')]);
    expect(otherKey.code).toBe(1);
    expect(otherKey.err).toContain('the key has no memory "Basic"');
  }, 240_000);
});
