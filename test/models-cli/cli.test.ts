// The `dragoman models` command end to end, in-process (captured output) over a fake hub and temp folders.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, truncate } from 'node:fs/promises';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/commands/models.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { startFakeHub, type FakeHub } from './fake-hub.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'models');
const REPO_ROOT = join(import.meta.dirname, '..', '..');

let hub: FakeHub;
let root: string;

function io(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const value: CliIo = { env, out: (l) => void out.push(l), err: (l) => void err.push(l) };
  return { io: value, out, err };
}

beforeAll(async () => {
  hub = await startFakeHub({ repos: { 'Xenova/opus-mt-en-de': join(FIXTURES, 'tiny-marian-en-de') } });
  root = await mkdtemp(join(tmpdir(), 'dragoman-cli-models-'));
});
afterAll(async () => {
  await hub.close();
  await rm(root, { recursive: true, force: true });
});

describe('dragoman models', () => {
  it('remove deletes an installed model and leaves nothing behind; an unknown or unsafe name is refused', async () => {
    const dir = join(root, 'remove');
    await cp(join(FIXTURES, 'tiny-marian-en-de'), join(dir, 'tiny-marian-en-de'), { recursive: true });
    await cp(join(FIXTURES, 'tiny-marian-de-en'), join(dir, 'tiny-marian-de-en'), { recursive: true });
    const env = { DRAGOMAN_MODELS_DIR: dir };
    const a = io(env);
    expect(await run(['remove', 'tiny-marian-en-de'], a.io)).toBe(0);
    expect(a.out).toEqual([`Removed tiny-marian-en-de from ${dir}; a running server stops serving it within seconds`]);
    expect(await readdir(dir)).toEqual(['tiny-marian-de-en']);
    await expect(run(['remove', 'tiny-marian-en-de'], io(env).io)).rejects.toThrow(`${join(dir, 'tiny-marian-en-de')} does not exist`);
    await expect(run(['remove', '../remove'], io(env).io)).rejects.toThrow('"../remove" is not a model folder name');
    expect(await readdir(dir)).toEqual(['tiny-marian-de-en']);
  });

  it('pull (preset) → list → verify → pack → import on another host → list', async () => {
    const connected = { DRAGOMAN_MODELS_DIR: join(root, 'connected'), HF_ENDPOINT: hub.url };
    const a = io(connected);
    expect(await run(['pull', 'opus-mt-en-de'], a.io)).toBe(0);
    expect(a.err.join('\n')).toMatch(/Installed opus-mt-en-de/);

    const l = io(connected);
    expect(await run(['list'], l.io)).toBe(0);
    expect(l.out[0]).toMatch(/^NAME\s+FAMILY\s+LANGUAGES\s+PRECISION\s+SIZE\s+STATUS$/);
    expect(l.out[1]).toMatch(/^opus-mt-en-de\s+marian\s+en → de\s+int8\s+[\d.]+ MB\s+ok$/);

    const v = io(connected);
    expect(await run(['verify'], v.io)).toBe(0);
    expect(v.out).toEqual(['opus-mt-en-de: ok (8 files)']);

    const tar = join(root, 'usb', 'models.tar');
    const p = io(connected);
    expect(await run(['pack', 'opus-mt-en-de', '-o', tar], p.io)).toBe(0);
    expect(p.out[0]).toMatch(/^Wrote .*models\.tar \([\d.]+ MB\): opus-mt-en-de$/);

    const airGapped = { DRAGOMAN_MODELS_DIR: join(root, 'air-gapped') };
    const i = io(airGapped);
    expect(await run(['import', tar], i.io)).toBe(0);
    const l2 = io(airGapped);
    expect(await run(['list', '--json'], l2.io)).toBe(0);
    const listed = JSON.parse(l2.out[0]!) as { name: string; status: string; manifest: string; origin: string }[];
    expect(listed).toEqual([
      expect.objectContaining({ name: 'opus-mt-en-de', status: 'ok', manifest: 'ok', origin: `Xenova/opus-mt-en-de@${hub.commit.slice(0, 12)}` }),
    ]);
  });

  it('list and verify report a damaged model with a non-zero exit code', async () => {
    const env = { DRAGOMAN_MODELS_DIR: join(root, 'damaged') };
    await cp(join(root, 'air-gapped', 'opus-mt-en-de'), join(root, 'damaged', 'opus-mt-en-de'), { recursive: true });
    await truncate(join(root, 'damaged', 'opus-mt-en-de', 'tokenizer_config.json'), 10);
    const l = io(env);
    expect(await run(['list'], l.io)).toBe(1);
    expect(l.out[1]).toMatch(/corrupt$/);
    expect(l.out.join('\n')).toMatch(/tokenizer_config\.json: 10 bytes, manifest says \d+/);
    const v = io(env);
    expect(await run(['verify', 'opus-mt-en-de'], v.io)).toBe(1);
    expect(v.out[0]).toBe('opus-mt-en-de: corrupt');
  });

  it('runs as a real process: npx dragoman models pull with HF_ENDPOINT, progress on stderr, then list', async () => {
    const exec = promisify(execFile);
    const env = { ...process.env, DRAGOMAN_MODELS_DIR: join(root, 'spawned'), HF_ENDPOINT: hub.url };
    const pulled = await exec('npx', ['--no-install', 'dragoman', 'models', 'pull', 'opus-mt-en-de', '--precision', 'fp32'], { cwd: REPO_ROOT, env });
    // stderr is not a TTY here: one line per file, no carriage returns.
    expect(pulled.stderr).toMatch(/onnx\/decoder_model_merged\.onnx: done, [\d.]+ MB/);
    expect(pulled.stderr).not.toContain('\r');
    const listed = await exec('npx', ['--no-install', 'dragoman', 'models', 'list'], { cwd: REPO_ROOT, env });
    expect(listed.stdout).toMatch(/opus-mt-en-de\s+marian\s+en → de\s+fp32\s+[\d.]+ MB\s+ok/);
    const failed = await exec('npx', ['--no-install', 'dragoman', 'models', 'import', join(root, 'missing.tar')], { cwd: REPO_ROOT, env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toMatch(/^dragoman: .*missing\.tar/m);
  });

  it('gives clear messages for bad input', async () => {
    const env = { DRAGOMAN_MODELS_DIR: join(root, 'empty') };
    await expect(run(['pull'], io(env).io)).rejects.toThrow(/expected one REPO/);
    await expect(run(['pull', 'x', '--precision', 'fp16'], io(env).io)).rejects.toThrow(/--precision must be int8, fp32, int4, auto, got "fp16"/);
    await expect(run(['pack', 'opus-mt-en-de'], io(env).io)).rejects.toThrow(/-o FILE\.tar/);
    await expect(run(['import', join(root, 'nope.tar')], io(env).io)).rejects.toThrow(/ENOENT|no such file/);
    const l = io(env);
    expect(await run(['list'], l.io)).toBe(0);
    expect(l.out[0]).toMatch(/No models in .*dragoman models pull opus-mt-en-de/);
    expect(await readdir(root)).not.toContain('empty');
  });
});
