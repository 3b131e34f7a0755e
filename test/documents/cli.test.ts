// `dragoman translate` as the real process (bin/dragoman.js) with the fixture models: files written beside the
// input or to --out-dir, one line per file when standard error is not a terminal, plain text through stdin/stdout;
// the words are those /v1/translate gives.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { oneModelDir, TEST_GRAPH_CACHE } from '../fixture-models.ts';
import { SAMPLES } from './samples.ts';
import { detectFormat } from '../../src/documents/formats/index.ts';

const LIMITS = { maxCharacters: 1e6, maxUnits: 1e6, maxUncompressedBytes: 1e8, maxZipEntries: 1e4, maxCompressionRatio: 200 };

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'dragoman.js');
const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'dragoman-cli-translate-'));
const env = { ...process.env, DRAGOMAN_MODELS_DIR: oneModelDir('tiny-marian-en-de'), DRAGOMAN_GRAPH_CACHE_DIR: TEST_GRAPH_CACHE, DRAGOMAN_DATA_DIR: join(dir, 'data'), DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1' };
let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ DRAGOMAN_MODELS_DIR: oneModelDir('tiny-marian-en-de') });
  key = (await t.key()).secret;
});

afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The file the format writes from /v1/translate's translations of its units (sent as one request, one batch). */
async function expected(name: string, text: string): Promise<string> {
  const doc = await detectFormat(Buffer.from(text), name).open(Buffer.from(text), LIMITS);
  const r = await t.call('POST', '/v1/translate', { key, body: { q: doc.units.map((u) => u.html), source: 'en', target: 'de', format: 'html' } });
  return Buffer.from(await doc.write(r.body.data.translations.map((x: { translatedText: string }) => x.translatedText), 'de')).toString();
}

describe('dragoman translate', () => {
  it('translates files: beside the input, and to --out-dir; one line per file on a pipe', async () => {
    const md = SAMPLES.find((s) => s.name === 'guide.md')!;
    const srt = SAMPLES.find((s) => s.name === 'film.srt')!;
    writeFileSync(join(dir, md.name), md.text);
    writeFileSync(join(dir, srt.name), srt.text);
    const r = await exec(process.execPath, [BIN, 'translate', join(dir, md.name), join(dir, srt.name), '--to', 'de', '--from', 'en'], { env, timeout: 120_000 });
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/guide\.md → .*guide\.de\.md \(markdown, \d+ segments, \d+ characters/);
    expect(lines[1]).toMatch(/film\.srt → .*film\.de\.srt \(srt/);
    const out = readFileSync(join(dir, 'guide.de.md'), 'utf8');
    for (const kept of md.kept) expect(out).toContain(kept);
    expect(out).toBe(await expected(md.name, md.text));

    const outDir = join(dir, 'out');
    mkdirSync(outDir);
    const r2 = await exec(process.execPath, [BIN, 'translate', join(dir, srt.name), '--to', 'de', '--out-dir', outDir], { env, timeout: 120_000 });
    expect(r2.stderr).toMatch(/film\.de\.srt/);
    expect(readFileSync(join(outDir, 'film.de.srt'), 'utf8')).toBe(readFileSync(join(dir, 'film.de.srt'), 'utf8'));
  }, 180_000);

  it('plain text from standard input to standard output', async () => {
    const child = spawn(process.execPath, [BIN, 'translate', '--to', 'de', '--from', 'en'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stdin.end('The house is small.\n\nThe garden is big.\n');
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(0);
    expect(stdout).toBe(await expected('stdin.txt', 'The house is small.\n\nThe garden is big.\n'));
    expect(stdout).not.toBe('The house is small.\n\nThe garden is big.\n');
  }, 120_000);

  it('a file it cannot translate: the reason, exit 1, nothing written', async () => {
    writeFileSync(join(dir, 'scan.pdf'), '%PDF-1.5\n');
    const r = await exec(process.execPath, [BIN, 'translate', join(dir, 'scan.pdf'), '--to', 'de'], { env, timeout: 120_000 }).catch((e: { code: number; stderr: string }) => e);
    expect(r).toMatchObject({ code: 1 });
    expect((r as { stderr: string }).stderr).toMatch(/scan\.pdf: The PDF's cross-reference table is broken/);
    expect(existsSync(join(dir, 'scan.de.pdf'))).toBe(false);
  }, 120_000);
});
