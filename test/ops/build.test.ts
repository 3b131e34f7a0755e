// What the container runs: `npm run build` output (tsc → dist/ + the non-TS files) started with plain node, no
// tsx involved in loading the app. Built into .tmp/ (git-ignored) rather than dist/, because bin/dragoman.js
// prefers dist/ when it exists and a stale one would shadow the sources.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDockerfile } from './dockerfile-parse.ts';
import { listening } from '../server-process.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const out = mkdtempSync(join(ROOT, '.tmp', 'build-'));
const dist = join(out, 'dist');
const scratch = mkdtempSync(join(tmpdir(), 'dragoman-build-run-'));

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe('npm run build', () => {
  it('compiles, copies the runtime files, and the compiled server starts with node alone', async () => {
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', dist], { cwd: ROOT }).catch(
      (e: Error & { stdout?: string }) => {
        throw new Error(`tsc -p tsconfig.build.json failed (the image build would too):\n${e.stdout ?? e.message}`);
      },
    );
    await run(process.execPath, ['scripts/copy-build-assets.mjs', dist], { cwd: ROOT });
    for (const f of ['cli/main.js', 'app.js', 'engine/pool/worker-entry.mjs', 'text/offload/worker-entry.mjs', 'storage/sqlite/migrations/001_init.sql', 'models/pull.js']) {
      expect(existsSync(join(dist, f)), f).toBe(true);
    }
    // The AMX guard npm ci compiled (Linux x64), loadable from dist; its C source stays behind.
    const { loadAmxGuard } = (await import(join(dist, 'engine/runtime/amx.js'))) as typeof import('../../src/engine/runtime/amx.ts');
    const guard = loadAmxGuard();
    if (process.platform === 'linux' && process.arch === 'x64') expect(typeof guard === 'object' && typeof guard.tilePermitted).toBe('function');
    else expect(guard).toMatch(/not built for/);
    expect(existsSync(join(dist, 'engine/amx-guard/amx_guard.c'))).toBe(false);

    const env = {
      ...process.env,
      DRAGOMAN_PORT: '0',
      DRAGOMAN_DATA_DIR: join(scratch, 'data'),
      DRAGOMAN_MODELS_DIR: join(scratch, 'models'),
      DRAGOMAN_LOG_LEVEL: 'warn',
    };
    // The thread that prepares a decoder's graphs starts from the compiled entry.
    const { prepareInThread } = (await import(join(dist, 'engine/runtime/prepare.js'))) as typeof import('../../src/engine/runtime/prepare.ts');
    const { fileStamp } = (await import(join(dist, 'engine/model/file-stamp.js'))) as typeof import('../../src/engine/model/file-stamp.ts');
    const decoderPath = join(ROOT, 'test/fixtures/models/tiny-marian-en-de/onnx/decoder_model_merged.onnx');
    const stamp = fileStamp(decoderPath);
    const settings = { skip: ['attention-fusion', 'greedy-loop'] };
    const prepared = await prepareInThread({ decoderPath, stamp, dims: { layers: 2, heads: 4, headDim: 32 }, padId: 3999, eosId: 0, settings });
    expect(prepared.kind === 'split' && (prepared.model as Uint8Array).byteLength).toBeGreaterThan(100_000);
    const list = await run(process.execPath, [join(dist, 'cli/main.js'), 'models', 'list'], { cwd: ROOT, env });
    expect(list.stdout).toMatch(/^No models in /);
    // One model, so the engine's worker thread starts from the compiled worker entry too.
    mkdirSync(env.DRAGOMAN_MODELS_DIR, { recursive: true });
    symlinkSync(join(ROOT, 'test/fixtures/models/tiny-marian-en-de'), join(env.DRAGOMAN_MODELS_DIR, 'tiny-marian-en-de'));
    const created = await run(process.execPath, [join(dist, 'cli/main.js'), 'keys', 'create', '--plan', 'pro', '--json'], { cwd: ROOT, env });
    const key = (JSON.parse(created.stdout) as { key: string }).key;

    const child = spawn(process.execPath, [join(dist, 'cli/main.js'), 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const { url } = await listening(child);
      expect((await fetch(`${url}/health`)).status).toBe(200);
      // The Dockerfile's HEALTHCHECK command itself, run as Docker would: 0 against this server, 1 against nothing.
      const hc = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).instructions.find((i) => i.keyword === 'HEALTHCHECK')!;
      const [cmd, ...cmdArgs] = JSON.parse(hc.args.slice(hc.args.indexOf('CMD ') + 4)) as string[];
      expect(cmd).toBe('node');
      const port = new URL(url).port;
      await expect(run(process.execPath, cmdArgs, { env: { ...process.env, DRAGOMAN_PORT: port } })).resolves.toBeDefined();
      await expect(run(process.execPath, cmdArgs, { env: { ...process.env, DRAGOMAN_PORT: '1' } })).rejects.toMatchObject({ code: 1 });
      const doc = (await (await fetch(`${url}/docs/json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths)).toContain('/v1/translate');
      const translated = await fetch(`${url}/v1/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ q: 'A man is riding a bicycle.', source: 'en', target: 'de' }),
      });
      expect(translated.status).toBe(200);
      expect(((await translated.json()) as { data: { translations: { translatedText: string }[] } }).data.translations[0]!.translatedText).toMatch(/Mann/);
      // A text long enough for the text worker thread, which starts from its compiled entry too.
      const long = await fetch(`${url}/v1/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ q: '<p>A man is riding a <b>bicycle</b>.</p>'.repeat(60), source: 'en', target: 'de', format: 'html' }),
      });
      expect(long.status).toBe(200);
      expect(((await long.json()) as { data: { translations: { translatedText: string }[] } }).data.translations[0]!.translatedText.split('<b>')).toHaveLength(61);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
