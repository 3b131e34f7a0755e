// A server killed (SIGKILL) while it translates a document: once a server runs again on the same data, the job
// is finished (or failed and refunded) and the key is charged for it exactly once. The real process, twice.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { systemClock } from '../../src/accounts/clock.ts';
import { openAccountStore } from '../../src/accounts/index.ts';
import { loadConfig } from '../../src/config/env.ts';
import { download, upload, waitForJob } from './helpers.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'dragoman-doc-kill-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

const models = join(dir, 'models');
mkdirSync(models);
symlinkSync(resolve(ROOT, 'test/fixtures/models/tiny-marian-en-de'), join(models, 'tiny-marian-en-de'));
const env = {
  DRAGOMAN_PORT: '0',
  DRAGOMAN_DATA_DIR: join(dir, 'data'),
  DRAGOMAN_MODELS_DIR: models,
  DRAGOMAN_WORKERS: '1',
  DRAGOMAN_INTRA_OP_THREADS: '1',
  DRAGOMAN_CACHE_SIZE: '0',
  DRAGOMAN_LOG_LEVEL: 'info',
};

function serve(): Promise<{ child: ChildProcess; url: string; log: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let log = '';
  return new Promise((resolveServe, reject) => {
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(log);
      if (m) resolveServe({ child, url: m[1]!, log: () => log });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${log}`)));
  });
}

async function usage(keyId: string): Promise<{ chars: number; requests: number }> {
  const store = await openAccountStore(loadConfig(env));
  try {
    return await store.usage(keyId, new Date().toISOString().slice(0, 7));
  } finally {
    await store.close();
  }
}

describe('documents: SIGKILL mid-job, then a restart', () => {
  it('the job finishes (or fails and is refunded) and is charged exactly once', async () => {
    const store = await openAccountStore(loadConfig(env));
    const { key, secret } = await new Accounts(store, systemClock).createKey({ plan: 'pro' });
    await store.close();

    const first = await serve();
    const text = Array.from({ length: 1500 }, (_x, i) => `The house number ${i} is small, and the garden behind it is very big.`).join('\n\n');
    const up = await upload(first.url, secret, 'long.txt', text);
    expect(up.status, JSON.stringify(up.body)).toBe(202);
    const id = up.body.data.document.id as string;
    const characters = up.body.data.document.characters as number;
    expect((await usage(key.id)).chars).toBe(characters);

    // Killed once it is translating, part way.
    for (let n = 0; ; n++) {
      const r = await fetch(`${first.url}/v1/documents/${id}`, { headers: { 'x-api-key': secret } });
      const doc = ((await r.json()) as any).data.document;
      if (doc.status === 'translating' && doc.progress > 0) break;
      expect(doc.status, 'the job ended before the kill: make the document longer').not.toMatch(/done|error/);
      expect(n).toBeLessThan(600);
      await new Promise((r2) => setTimeout(r2, 50));
    }
    process.kill(-first.child.pid!, 'SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(first.log()).not.toContain('The house number'); // document content is never logged

    const second = await serve();
    const status = await fetch(`${second.url}/v1/documents/${id}`, { headers: { 'x-api-key': secret } });
    expect(status.status).toBe(200); // the job's status answers at once after the restart
    const done = await waitForJob(second.url, secret, id, 150_000);
    const used = (await usage(key.id)).chars;
    if (done.status === 'done') {
      expect(used).toBe(characters);
      const result = await download(second.url, secret, id);
      expect(result.status).toBe(200);
      expect(result.bytes.toString().split('\n\n')).toHaveLength(1500);
    } else {
      expect(used).toBe(0);
    }
    expect(second.log()).toContain('document taken over');
    process.kill(-second.child.pid!, 'SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
    // Nothing more happens on a further start: the charge stays as it was.
    const third = await serve();
    await new Promise((r) => setTimeout(r, 1000));
    expect((await usage(key.id)).chars).toBe(used);
    process.kill(-third.child.pid!, 'SIGTERM');
  }, 240_000);
});
