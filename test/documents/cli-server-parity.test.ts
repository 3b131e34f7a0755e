// One path for documents: `dragoman translate` on this machine and POST /v1/documents on a running server give the
// same bytes for the same file, placeholders (%s, %d, {{name}}) included, with the same settings (one environment).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/dispatch.ts';
import { oneModelDir } from '../fixture-models.ts';
import { listening } from '../server-process.ts';
import { download, upload, waitForJob } from './jobs-client.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin', 'dragoman.js');
const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'dragoman-parity-'));
const env: Record<string, string> = {
  DRAGOMAN_PORT: '0',
  // English to German only: the server and each `translate` process load that one model, not the three core ones.
  DRAGOMAN_MODELS_DIR: oneModelDir('tiny-marian-en-de'),
  DRAGOMAN_DATA_DIR: join(dir, 'data'),
  DRAGOMAN_WORKERS: '1',
  DRAGOMAN_INTRA_OP_THREADS: '1',
  DRAGOMAN_LOG_LEVEL: 'warn',
};

const FILES = {
  'app.po':
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n' +
    '#, c-format\nmsgid "The house of %s is small."\nmsgstr ""\n\n' +
    '#, c-format\nmsgid "We have %d gardens."\nmsgstr ""\n\n' +
    'msgid "Hello {{name}}, the cat sleeps."\nmsgstr ""\n',
  'notes.txt': 'The house of %s is small.\nWe have %d gardens.\n\nHello {{name}}, the cat sleeps.\n',
};
const PLACEHOLDERS = ['%s', '%d', '{{name}}'];

let server: ChildProcess;
let url: string;
let key: string;

beforeAll(async () => {
  const out: string[] = [];
  expect(await main(['keys', 'create', '--plan', 'enterprise', '--json'], { env, out: (l) => void out.push(l), err: () => undefined })).toBe(0);
  key = (JSON.parse(out.join('\n')) as { key: string }).key;
  server = spawn(process.execPath, [BIN, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  url = (await listening(server)).url;
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
});

afterAll(async () => {
  server?.kill('SIGTERM');
  if (server && server.exitCode === null) await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
});

describe('dragoman translate and POST /v1/documents', () => {
  for (const name of Object.keys(FILES) as (keyof typeof FILES)[]) {
    it(`${name}: the same bytes both ways, every placeholder kept`, async () => {
      await exec(process.execPath, [BIN, 'translate', join(dir, name), '--from', 'en', '--to', 'de'], { env: { ...process.env, ...env }, timeout: 120_000 });
      const local = readFileSync(join(dir, name.replace(/\.(\w+)$/, '.de.$1')));

      const accepted = await upload(url, key, name, FILES[name], { source: 'en', target: 'de' });
      expect(accepted.status).toBe(202);
      const id = accepted.body.data.document.id as string;
      expect((await waitForJob(url, key, id)).status).toBe('done');
      const served = await download(url, key, id);
      expect(served.status).toBe(200);

      expect(local.toString()).toBe(served.bytes.toString());
      expect(local.equals(served.bytes)).toBe(true);
      const text = local.toString();
      // Translated (not the file given back) with each placeholder as written: a PO file keeps its msgid beside the
      // msgstr, so there each appears twice.
      expect(text).not.toBe(FILES[name]);
      const copies = name.endsWith('.po') ? 2 : 1;
      for (const p of PLACEHOLDERS) expect(text.split(p).length - 1, `${p} in ${text}`).toBe(copies * (FILES[name].split(p).length - 1));
    });
  }

  it('with a glossary (a .tsv file to the command, the same terms as a /v1 glossary): the same bytes, the terms held', async () => {
    const tsv = 'house\tGebäude\ncat\tKater\n';
    writeFileSync(join(dir, 'terms.tsv'), tsv);
    writeFileSync(join(dir, 'terms.txt'), FILES['notes.txt']);
    await exec(process.execPath, [BIN, 'translate', join(dir, 'terms.txt'), '--from', 'en', '--to', 'de', '--glossary', join(dir, 'terms.tsv')], {
      env: { ...process.env, ...env },
      timeout: 120_000,
    });
    const local = readFileSync(join(dir, 'terms.de.txt')).toString();

    const made = await fetch(`${url}/v1/glossaries`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'terms', source: 'en', target: 'de', entries: tsv }),
    });
    expect(made.status).toBe(201);
    const glossary = ((await made.json()) as { data: { glossary: { id: string } } }).data.glossary.id;
    const accepted = await upload(url, key, 'terms.txt', FILES['notes.txt'], { source: 'en', target: 'de', glossary });
    expect(accepted.status).toBe(202);
    const id = accepted.body.data.document.id as string;
    expect((await waitForJob(url, key, id)).status).toBe('done');
    expect(local).toBe((await download(url, key, id)).bytes.toString());
    expect(local).toContain('Gebäude');
    expect(local).toContain('Kater');
  });
});
