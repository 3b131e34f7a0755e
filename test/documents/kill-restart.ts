// A server killed (SIGKILL) while it translates a document, then started again on the same data: the job is
// finished (or failed and refunded) and the key is charged for it exactly once. The real process, twice (and a
// third start that must change nothing). Shared by the SQLite run (durability.test.ts) and the PostgreSQL one
// (test/postgres/documents-kill.test.ts), which differ only in DRAGOMAN_DATABASE_URL.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { systemClock } from '../../src/accounts/clock.ts';
import { configuredAccountStore } from '../stores.ts';
import { loadConfig } from '../../src/config/env.ts';
import { download, upload, waitForJob } from './jobs-client.ts';
import { listening } from '../server-process.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export interface KillRestart {
  /** The scenario; `databaseUrl` puts accounts and job records in PostgreSQL. Returns the job's id. */
  run(databaseUrl?: string): Promise<string>;
  /** Kills what is left and removes the data directory. */
  cleanup(): void;
}

export function killRestart(): KillRestart {
  const dir = mkdtempSync(join(tmpdir(), 'dragoman-doc-kill-'));
  const children: ChildProcess[] = [];
  const models = join(dir, 'models');
  mkdirSync(models);
  symlinkSync(resolve(ROOT, 'test/fixtures/models/tiny-marian-en-de'), join(models, 'tiny-marian-en-de'));
  const env: Record<string, string> = {
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
    return listening(child).then(({ url, output }) => ({ child, url, log: output }));
  }

  async function usage(keyId: string): Promise<{ chars: number; requests: number }> {
    const store = await configuredAccountStore(loadConfig(env));
    try {
      const { chars, requests } = await store.usage(keyId, new Date().toISOString().slice(0, 7));
      return { chars, requests };
    } finally {
      await store.close();
    }
  }

  const stop = async (child: ChildProcess, signal: NodeJS.Signals) => {
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid!, signal);
    await exited;
  };

  return {
    async run(databaseUrl) {
      if (databaseUrl) env.DRAGOMAN_DATABASE_URL = databaseUrl;
      const store = await configuredAccountStore(loadConfig(env));
      const { key, secret } = await new Accounts(store, systemClock).createKey({ plan: 'pro', rpm: null });
      await store.close();

      const first = await serve();
      const text = Array.from({ length: 500 }, (_x, i) => `The house number ${i} is small, and the garden behind it is very big.`).join('\n\n');
      const up = await upload(first.url, secret, 'long.txt', text);
      expect(up.status, JSON.stringify(up.body)).toBe(202);
      const id = up.body.data.document.id as string;
      const characters = up.body.data.document.characters as number;
      expect(await usage(key.id)).toEqual({ chars: characters, requests: 1 });

      // Killed once it is translating, part way.
      for (let n = 0; ; n++) {
        const r = await fetch(`${first.url}/v1/documents/${id}`, { headers: { 'x-api-key': secret } });
        const doc = ((await r.json()) as any).data.document;
        if (doc.status === 'translating' && doc.progress > 0) break;
        expect(doc.status, 'the job ended before the kill: make the document longer').not.toMatch(/done|error/);
        expect(n).toBeLessThan(600);
        await new Promise((r2) => setTimeout(r2, 50));
      }
      await stop(first.child, 'SIGKILL');
      expect(first.log()).not.toContain('The house number'); // document content is never logged

      const second = await serve();
      const status = await fetch(`${second.url}/v1/documents/${id}`, { headers: { 'x-api-key': secret } });
      expect(status.status).toBe(200); // the job's status answers at once after the restart
      const done = await waitForJob(second.url, secret, id, 150_000);
      const used = await usage(key.id);
      if (done.status === 'done') {
        expect(used).toEqual({ chars: characters, requests: 1 });
        const result = await download(second.url, secret, id);
        expect(result.status).toBe(200);
        expect(result.bytes.toString().split('\n\n')).toHaveLength(500);
      } else {
        expect(used).toEqual({ chars: 0, requests: 0 });
      }
      expect(second.log()).toContain('document taken over');
      await stop(second.child, 'SIGTERM');
      // Nothing more happens on a further start: the charge stays as it was.
      const third = await serve();
      await new Promise((r) => setTimeout(r, 1000));
      expect(await usage(key.id)).toEqual(used);
      await stop(third.child, 'SIGTERM');
      return id;
    },
    cleanup() {
      for (const c of children) {
        try {
          process.kill(-c.pid!, 'SIGKILL');
        } catch {
          // gone
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
