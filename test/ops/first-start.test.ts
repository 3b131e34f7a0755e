// A fresh clone's `npm start` with nothing else done: no model installed and no key made. The demo models serve,
// labelled as such, and a server only this machine can reach prints one key, once; on any other address it never does.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/dispatch.ts';
import { isLoopbackHost } from '../../src/cli/commands/serve.ts';
import { listening } from '../server-process.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'dragoman-first-start-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

function env(name: string, extra: Record<string, string> = {}): Record<string, string> {
  const models = join(dir, name, 'models');
  mkdirSync(models, { recursive: true });
  return { DRAGOMAN_PORT: '0', DRAGOMAN_DATA_DIR: join(dir, name, 'data'), DRAGOMAN_MODELS_DIR: models, DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1', ...extra };
}

/** `npm start` as a user types it; stops it (SIGTERM to its group) once `use` is done. */
async function npmStart<T>(vars: Record<string, string>, use: (url: string, stdout: () => string) => Promise<T>): Promise<T> {
  const child = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: { ...process.env, ...vars }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(child);
  let stdout = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  const closed = new Promise<void>((r) => child.stdout!.once('close', () => r()));
  // On all addresses the line reads "listening on 0.0.0.0:N, all addresses (http://127.0.0.1:N from this machine)".
  const { url } = await listening(child, /listening on \S*?(?:, all addresses \()?(http:\/\/[^\s)]+)/);
  try {
    return await use(url, () => stdout);
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
    await closed;
  }
}

const keysOf = (text: string) => text.match(/dk_[A-Za-z0-9_-]{20,}/g) ?? [];

async function keysList(vars: Record<string, string>): Promise<unknown[]> {
  const out: string[] = [];
  expect(await main(['keys', 'list', '--json'], { env: vars, out: (l) => void out.push(l), err: () => undefined })).toBe(0);
  return JSON.parse(out.join('\n')) as unknown[];
}

describe('npm start on a fresh clone', () => {
  const first = env('loopback');

  it('serves the demo models, labelled, and prints one working key', async () => {
    await npmStart(first, async (url, stdout) => {
      const printed = keysOf(stdout());
      expect(printed).toHaveLength(1);
      expect(stdout()).toMatch(/shown only this once/);
      const key = printed[0]!;

      const health = (await (await fetch(`${url}/health`)).json()) as { modelsLoaded: number; demo?: { models: string[]; note: string } };
      expect(health.modelsLoaded).toBe(2);
      expect(health.demo?.models).toEqual(['tiny-marian-en-de', 'tiny-marian-de-en']);
      expect(health.demo?.note).toMatch(/dragoman models pull/);

      const languages = (await (await fetch(`${url}/v1/languages`, { headers: { 'x-api-key': key } })).json()) as {
        data: { languages: { language: string }[]; demo?: { note: string } };
      };
      expect(languages.data.languages.map((l) => l.language).sort()).toEqual(['de', 'en']);
      expect(languages.data.demo?.note).toMatch(/^Demo models/);
      // The page's banner reads the same field from its settings.
      const settings = (await (await fetch(`${url}/ui/settings`)).json()) as { data: { demo?: { note: string } } };
      expect(settings.data.demo?.note).toBe(languages.data.demo?.note);

      const res = await fetch(`${url}/v1/translate`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ q: 'The cat sleeps.', target: 'de' }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { translations: { translatedText: string; detectedSourceLanguage: string }[] } };
      expect(body.data.translations[0]!.detectedSourceLanguage).toBe('en');
      expect(body.data.translations[0]!.translatedText).not.toBe('The cat sleeps.');
      // Printed, never logged: the JSON lines do not carry it.
      for (const line of stdout().split('\n').filter((l) => l.startsWith('{'))) expect(line).not.toContain(key);
      // Log times are ISO 8601 in UTC.
      const times = stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { time: unknown }).time);
      expect(times.length).toBeGreaterThan(0);
      for (const time of times) {
        expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(Math.abs(Date.parse(time as string) - Date.now())).toBeLessThan(600_000);
      }
    });
    const keys = (await keysList(first)) as { id: string }[];
    expect(keys).toHaveLength(1);
    // The audit log says where the key came from.
    const out: string[] = [];
    expect(await main(['audit', '--format', 'json'], { env: first, out: (l) => void out.push(l), err: () => undefined })).toBe(0);
    expect((JSON.parse(out.join('\n')) as { actor: string; action: string; keyId: string }[]).map((e) => [e.actor, e.action, e.keyId]))
      .toEqual([['first-start', 'key.create', keys[0]!.id]]);
  });

  it('a second start prints no key; DRAGOMAN_DEMO_MODELS=off serves no model', async () => {
    await npmStart({ ...first, DRAGOMAN_DEMO_MODELS: 'off' }, async (url, stdout) => {
      expect(keysOf(stdout())).toEqual([]);
      const health = (await (await fetch(`${url}/health`)).json()) as Record<string, unknown>;
      expect(health).toEqual({ status: 'ok', models: [], modelsInstalled: 0, modelsLoaded: 0 });
    });
    expect(await keysList(first)).toHaveLength(1);
  });

  it('on every address (0.0.0.0) no key is made or printed', async () => {
    const open = env('all-addresses', { DRAGOMAN_HOST: '0.0.0.0' });
    await npmStart(open, async (url, stdout) => {
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect(keysOf(stdout())).toEqual([]);
    });
    expect(await keysList(open)).toEqual([]);
  });

  it('loopback means addresses only this machine reaches', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'LOCALHOST']) expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', 'example.com', '128.0.0.1', '::ffff:10.0.0.1']) expect(isLoopbackHost(h)).toBe(false);
  });
});
