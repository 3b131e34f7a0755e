// The real process: `npm start` / `node --import tsx src/cli/main.ts serve` spawned with env, keys made with
// `npx dragoman`, and a SIGKILL under load followed by a restart on the same data dir.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { call } from './helpers.ts';
import { oneModelDir } from '../fixture-models.ts';
import { listening } from '../server-process.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

interface Server {
  child: ChildProcess;
  url: string;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];

function envFor(dataDir: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DRAGOMAN_PORT: '0',
    DRAGOMAN_DATA_DIR: dataDir,
    // Every request here is English to German: each server start loads that one model, not the three core ones.
    DRAGOMAN_MODELS_DIR: oneModelDir('tiny-marian-en-de'),
    DRAGOMAN_WORKERS: '1',
    DRAGOMAN_INTRA_OP_THREADS: '1',
    DRAGOMAN_CACHE_SIZE: '0',
    DRAGOMAN_LOG_LEVEL: 'warn',
  };
}

/** Spawn a server and wait for its "listening on <url>" line. */
function serve(dataDir: string, command: string[]): Promise<Server> {
  // Own process group: `npm start` runs the server as a grandchild, and the whole group is stopped at the end.
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: envFor(dataDir),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  return listening(child).then(({ url }) => ({ child, url }));
}

async function npxDragoman(dataDir: string, args: string[]): Promise<string> {
  const { stdout } = await run('npx', ['--no-install', 'dragoman', ...args], { cwd: ROOT, env: envFor(dataDir) });
  return stdout;
}

afterEach(async () => {
  for (const c of children.splice(0)) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // group already gone
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'dragoman-proc-'));
  dirs.push(d);
  return d;
}

describe('the real process', () => {
  it('bound to every address (DRAGOMAN_HOST=0.0.0.0), the listening line says so, with the local URL', async () => {
    const child = spawn('node', ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: ROOT,
      env: { ...envFor(tempDir()), DRAGOMAN_HOST: '0.0.0.0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    const line = await new Promise<string>((done, fail) => {
      let log = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        const m = /listening on .*/.exec(log);
        if (m) done(m[0]);
      });
      child.once('exit', (code) => fail(new Error(`exited ${code}: ${log}`)));
    });
    const m = /^listening on 0\.0\.0\.0:(\d+), all addresses \((http:\/\/127\.0\.0\.1:(\d+)) from this machine\)/.exec(line);
    expect(m, line).not.toBeNull();
    expect(m![3]).toBe(m![1]);
    expect((await call(m![2]!, 'GET', '/health')).status).toBe(200);
  });

  it('npx dragoman keys create --plan pro --json, then translate against a running npm start', async () => {
    const data = tempDir();
    const server = await serve(data, ['npm', 'start', '--silent']);
    // The CLI writes the same database while the server runs.
    const created = JSON.parse(await npxDragoman(data, ['keys', 'create', '--plan', 'pro', '--json']));
    expect(created).toMatchObject({ plan: 'pro' });
    const r = await call(server.url, 'POST', '/v1/translate', {
      key: created.key,
      body: { q: 'A man in an orange hat starring at something.', source: 'en', target: 'de' },
    });
    expect(r.status).toBe(200);
    expect(r.body.data.translations[0].translatedText).toMatch(/^Ein Mann/);
    const usage = JSON.parse(await npxDragoman(data, ['usage', '--key', created.id, '--json']));
    expect(usage[0].charactersUsed).toBe(45);
  });

  it('SIGKILL under load: recorded usage covers every 200, plus at most the requests in flight', async () => {
    const data = tempDir();
    const command = ['node', '--import', 'tsx', 'src/cli/main.ts', 'serve'];
    const first = await serve(data, command);
    const { key } = JSON.parse(await npxDragoman(data, ['keys', 'create', '--plan', 'enterprise', '--json']));
    const texts = ['A girl in karate uniform breaking a stick.', 'A dog runs on the grass in front of a fence.'];
    const chars = texts.join('').length; // both strings, one request
    let ok = 0;
    let inFlight = 0;
    let killed = false;
    let maxInFlightAtKill = 0;
    const worker = async () => {
      while (!killed) {
        inFlight++;
        try {
          const r = await call(first.url, 'POST', '/v1/translate', { key, body: { q: texts, source: 'en', target: 'de' } });
          if (r.status === 200) ok++;
          else throw new Error(`unexpected ${r.status}`);
        } catch (err) {
          if (!killed) throw err;
        } finally {
          inFlight--;
        }
      }
    };
    const workers = Array.from({ length: 6 }, worker);
    while (ok < 15) await new Promise((r) => setTimeout(r, 20));
    killed = true;
    maxInFlightAtKill = inFlight;
    const okAtKill = ok;
    first.child.kill('SIGKILL');
    await Promise.all(workers);
    // Responses already on their way when the kill landed may still count as 200 on the client.
    const answered = ok;
    expect(answered).toBeGreaterThanOrEqual(okAtKill);

    const second = await serve(data, command);
    const usage = await call(second.url, 'GET', '/v1/usage', { key });
    expect(usage.status).toBe(200);
    const used = usage.body.data.charactersUsed as number;
    console.info(
      `SIGKILL run: 200s at kill ${okAtKill}, in flight ${maxInFlightAtKill}, 200s received ${answered}, ` +
        `requests recorded ${used / chars}`,
    );
    expect(used % chars).toBe(0); // whole requests only, none counted twice or half
    const counted = used / chars;
    expect(counted).toBeGreaterThanOrEqual(answered);
    expect(counted).toBeLessThanOrEqual(okAtKill + maxInFlightAtKill);
    expect(usage.body.data.requests).toBe(counted); // usage calls are not charged
  });
});
