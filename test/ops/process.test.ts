// The real process (`npm start` / `node --import tsx src/cli/main.ts serve`): SIGTERM while a request is in flight,
// and a fresh install with no model at all.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/dispatch.ts';
import { listening } from '../server-process.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = resolve(ROOT, 'test/fixtures/models');
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(withModel: boolean): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'dragoman-ops-proc-'));
  dirs.push(dir);
  const models = join(dir, 'models');
  mkdirSync(models);
  if (withModel) symlinkSync(join(FIXTURES, 'tiny-marian-en-de'), join(models, 'tiny-marian-en-de'));
  return {
    DRAGOMAN_PORT: '0',
    DRAGOMAN_DATA_DIR: join(dir, 'data'),
    DRAGOMAN_MODELS_DIR: models,
    DRAGOMAN_PRECISION: 'fp32',
    DRAGOMAN_WORKERS: '1',
    DRAGOMAN_INTRA_OP_THREADS: '1',
    DRAGOMAN_CACHE_SIZE: '0',
    DRAGOMAN_LOG_LEVEL: 'info',
  };
}

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
  /** stdout closed: every process holding it (npm's grandchild too) is gone. */
  drained: Promise<void>;
}

function serve(env: Record<string, string>, command: string[]): Promise<Running> {
  // Own process group: `npm start` runs the server as a grandchild.
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const drained = new Promise<void>((r) => child.stdout!.once('close', () => r()));
  return listening(child).then(({ url, output }) => ({ child, url, output, exited, drained }));
}

/** GET on a new connection: `status N`, or the connection error's code. */
function freshGet(url: string): Promise<string> {
  return new Promise((resolveResult) => {
    const req = httpGet(url, { agent: false }, (res) => {
      res.resume();
      resolveResult(`status ${res.statusCode}`);
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolveResult(e.code ?? e.message));
  });
}

async function cli(env: Record<string, string>, args: string[]): Promise<string> {
  const out: string[] = [];
  const code = await main(args, { env, out: (l) => void out.push(l), err: () => undefined });
  expect(code).toBe(0);
  return out.join('\n');
}

describe('graceful shutdown', () => {
  it('SIGTERM (twice) during an in-flight translation: it completes, new connections are refused, exit 0, usage recorded', async () => {
    const env = { ...setup(true), DRAGOMAN_SHUTDOWN_TIMEOUT_MS: '300000' };
    const key = JSON.parse(await cli(env, ['keys', 'create', '--plan', 'enterprise', '--json'])) as { id: string; key: string };
    const server = await serve(env, [process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'serve']);

    const sentence = 'A man in a blue shirt is standing on a ladder cleaning windows while two women walk past with their dogs';
    const q = Array.from({ length: 32 }, (_, i) => `${sentence} number ${i}.`);
    let finished = false;
    const inFlight = fetch(`${server.url}/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key.key },
      body: JSON.stringify({ q, source: 'en', target: 'de' }),
    }).then(async (res) => {
      finished = true;
      return {
        status: res.status,
        connection: res.headers.get('connection'),
        body: (await res.json()) as { data: { translations: { translatedText: string }[] } },
      };
    });

    // SIGTERM once the server has the request (its "incoming request" log line), not before.
    for (let i = 0; i < 1200 && !/"route":"\/v1\/translate"/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 25));
    expect(server.output()).toMatch(/"msg":"incoming request"/);
    server.child.kill('SIGTERM');
    for (let i = 0; i < 1200 && !/shutting down/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 25));
    // A second SIGTERM (an impatient supervisor) is noted, and kills nothing: the request below still completes.
    server.child.kill('SIGTERM');
    for (let i = 0; i < 1200 && !/already shutting down/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 25));
    expect(server.output()).toMatch(/already shutting down/);

    // The listener closes (a moment after the log line; until then a new request gets 503): new connections are
    // refused while the old request is still being translated. Each try on a fresh socket, never a kept-alive one.
    let late = '';
    for (let i = 0; i < 100 && late !== 'ECONNREFUSED'; i++) {
      late = await freshGet(`${server.url}/health`);
      if (late !== 'ECONNREFUSED') await new Promise((r) => setTimeout(r, 50));
    }
    expect(late).toBe('ECONNREFUSED');
    expect(finished).toBe(false);

    const done = await inFlight;
    expect(done.status).toBe(200);
    // Answered with Connection: close, so the finished request's keep-alive connection does not hold up the exit.
    expect(done.connection).toBe('close');
    expect(done.body.data.translations).toHaveLength(32);
    expect(done.body.data.translations.every((t) => t.translatedText.length > 0)).toBe(true);
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/"msg":"shutting down"/);

    // The database was closed cleanly and holds the charge of the request that completed during shutdown.
    const usage = JSON.parse(await cli(env, ['usage', '--key', key.id, '--json'])) as { charactersUsed: number }[];
    expect(usage[0]!.charactersUsed).toBe(q.reduce((n, s) => n + [...s].length, 0));
  });
});

describe('shutdown timeout', () => {
  it('cuts a request still running after DRAGOMAN_SHUTDOWN_TIMEOUT_MS, then closes and exits', async () => {
    const env = { ...setup(true), DRAGOMAN_SHUTDOWN_TIMEOUT_MS: '300' };
    const key = JSON.parse(await cli(env, ['keys', 'create', '--plan', 'enterprise', '--json'])) as { key: string };
    const server = await serve(env, [process.execPath, '--import', 'tsx', 'src/cli/main.ts', 'serve']);
    const sentence = 'A man in a blue shirt is standing on a ladder cleaning windows while two women walk past with their dogs';
    const q = Array.from({ length: 128 }, (_, i) => `${sentence} number ${i}.`);
    const inFlight = fetch(`${server.url}/v1/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key.key },
      body: JSON.stringify({ q, source: 'en', target: 'de' }),
    }).then(
      (r) => `status ${r.status}`,
      (e: Error) => `failed: ${e.message}`,
    );
    for (let i = 0; i < 1200 && !/"route":"\/v1\/translate"/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 25));
    server.child.kill('SIGTERM');
    expect(await inFlight).toMatch(/^failed/);
    const code = await server.exited;
    expect(server.output()).toMatch(/"msg":"shutdown timeout: closing the connections still open"/);
    // 0, not the 1 of the hard exit that follows the timeout by 10 s: engine and database closed normally.
    expect(code).toBe(0);
  });
});

describe('a fresh install with an empty models directory', () => {
  it('npm start serves /health, /v1/detect and /v1/languages, and translate says how to install a model', async () => {
    const env = setup(false);
    // A folder that cannot load (an interrupted copy: no tokenizer, no graphs) is said at start, with its reason.
    mkdirSync(join(env.DRAGOMAN_MODELS_DIR!, 'opus-mt-fr-en'));
    copyFileSync(join(FIXTURES, 'tiny-marian-en-de', 'config.json'), join(env.DRAGOMAN_MODELS_DIR!, 'opus-mt-fr-en', 'config.json'));
    const key = JSON.parse(await cli(env, ['keys', 'create', '--plan', 'pro', '--json'])) as { key: string };
    // docs/tuning.md: huge pages are off by default and yours to ask for; asked for here, so the listening line's
    // figure is checked where the kernel offers them (enabled: always or madvise).
    const server = await serve({ ...env, GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }, ['npm', 'start', '--silent']);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-api-key': key.key },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    const thp = existsSync('/sys/kernel/mm/transparent_hugepage/enabled') ? readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8') : '[never]';
    const huge = /huge pages: (\d+) MB/.exec(server.output());
    expect(huge).not.toBeNull();
    if (!thp.includes('[never]')) expect(Number(huge?.[1])).toBeGreaterThan(0);

    const health = await call('GET', '/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', models: [{ name: 'opus-mt-fr-en', status: 'incomplete', loaded: false }], modelsInstalled: 0, modelsLoaded: 0 });
    // Every missing file is named at once, so one look at the folder fixes it.
    const folder = join(env.DRAGOMAN_MODELS_DIR!, 'opus-mt-fr-en');
    const missing = ['tokenizer.json', 'onnx/encoder_model.onnx', 'onnx/decoder_model_merged.onnx'].map((f) => `${join(folder, f)} is missing`).join('; ');
    expect(server.output()).toContain(`dragoman: model opus-mt-fr-en (${folder}) not loaded (incomplete): ${missing}`);
    // The JSON log is written asynchronously: wait for the line rather than race it.
    for (let i = 0; i < 200 && !server.output().includes('"msg":"model not loaded"'); i++) await new Promise((r) => setTimeout(r, 25));
    const notLoaded = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'model not loaded');
    expect(notLoaded).toMatchObject({ level: 40, model: 'opus-mt-fr-en', status: 'incomplete', problem: missing });

    const detect = await call('POST', '/v1/detect', { q: 'Der Hund spielt im Garten mit einem roten Ball.' });
    expect(detect.status).toBe(200);
    expect(((await detect.json()) as { data: { detections: { language: string }[][] } }).data.detections.flat()[0]!.language).toBe('de');

    const languages = await call('GET', '/v1/languages');
    expect(languages.status).toBe(200);

    const translate = await call('POST', '/v1/translate', { q: 'Hello', source: 'en', target: 'de' });
    expect(translate.status).toBeGreaterThanOrEqual(400);
    const message = ((await translate.json()) as { error: { message: string } }).error.message;
    expect(message).toMatch(/install one with `dragoman models`/);

    // npm itself dies of the forwarded signal (the image runs node directly, see the test above for its exit 0):
    // signal the group as a service manager would, and see the server shut down.
    process.kill(-server.child.pid!, 'SIGTERM');
    await server.drained;
    expect(server.output()).toMatch(/"msg":"shutting down"/);
  });
});
