// A server process killed with SIGKILL in the middle of importing a 1,000,000-unit TMX into an existing memory: once
// started again, the memory is exactly as it was (its segments, its count), and what the killed import wrote is
// invisible, then swept. SQLite always; PostgreSQL when DRAGOMAN_TEST_DATABASE_URL names a test cluster.
import { type ChildProcess, spawn } from 'node:child_process';
import { createReadStream, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itNeeding } from '../tools.ts';
import { main } from '../../src/cli/dispatch.ts';
import { MemoryBook, memoryStore } from '../../src/memories/index.ts';
import { openStorage } from '../../src/storage/index.ts';
import { STALE_IMPORT_MS } from '../../src/memories/book.ts';
import { oneModelDir } from '../fixture-models.ts';
import { listening } from '../server-process.ts';
import { BASIC, writeGeneratedTmx } from './fixtures.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const UNITS = 1_000_000;
let dir: string;
let big: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dragoman-tm-kill-'));
  big = join(dir, 'big.tmx');
  await writeGeneratedTmx(big, UNITS);
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function envFor(data: string, databaseUrl?: string): Record<string, string> {
  return {
    DRAGOMAN_PORT: '0', DRAGOMAN_DATA_DIR: data, DRAGOMAN_MODELS_DIR: oneModelDir('tiny-marian-en-de'),
    DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1', DRAGOMAN_LOG_LEVEL: 'warn', ...(databaseUrl ? { DRAGOMAN_DATABASE_URL: databaseUrl } : {}),
  };
}

async function serve(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const { url } = await listening(child);
  return { child, url };
}

async function newKey(env: Record<string, string>): Promise<string> {
  const out: string[] = [];
  expect(await main(['keys', 'create', '--plan', 'enterprise', '--json'], { env, out: (l) => void out.push(l), err: () => undefined })).toBe(0);
  return (JSON.parse(out.join('\n')) as { key: string }).key;
}

const json = async (url: string, key: string, init: RequestInit = {}) => {
  const r = await fetch(url, { ...init, headers: { 'x-api-key': key, ...(init.headers as Record<string, string>) } });
  return { status: r.status, body: await r.json() as any };
};

async function scenario(env: Record<string, string>, stagedRows: () => Promise<number>): Promise<void> {
  const key = await newKey(env);
  let server = await serve(env);
  const made = await json(`${server.url}/v1/memories?name=Kept`, key, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: BASIC });
  expect(made.status).toBe(201);
  const id = made.body.data.memory.id as string;
  const before = (await json(`${server.url}/v1/memories/${id}/segments`, key)).body.data.segments;
  expect(before).toHaveLength(3);

  // The big import, streamed from disk; killed once its first chunks are written.
  const req = httpRequest(`${server.url}/v1/memories/${id}/import`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/x-tmx+xml' } });
  req.on('error', () => undefined);
  createReadStream(big).pipe(req);
  const deadline = Date.now() + 60_000;
  while ((await stagedRows()) < 10_000) {
    if (Date.now() > deadline) throw new Error('the import never started writing');
    await new Promise((r) => setTimeout(r, 50));
  }
  server.child.kill('SIGKILL');
  await new Promise((r) => server.child.once('exit', r));
  expect(await stagedRows()).toBeGreaterThanOrEqual(10_000);

  server = await serve(env);
  try {
    const after = await json(`${server.url}/v1/memories/${id}`, key);
    expect(after.body.data.memory.segmentCount).toBe(3);
    expect((await json(`${server.url}/v1/memories/${id}/segments?limit=1000`, key)).body.data.segments).toEqual(before);
    expect((await json(`${server.url}/v1/memories`, key)).body.data.memories.map((m: any) => m.id)).toEqual([id]);
    const t = await json(`${server.url}/v1/translate`, key, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q: 'Invoice number 7 was sent to customer 7 on line 7 of the report.', source: 'en', target: 'de', memory: id }) });
    expect(t.body.data.translations[0].memory.exact).toBe(0);
  } finally {
    server.child.kill('SIGKILL');
    await new Promise((r) => server.child.once('exit', r));
  }
  // What the killed import left is swept once it is surely abandoned.
  const storage = await openStorage({ dataDir: env.DRAGOMAN_DATA_DIR!, databaseUrl: env.DRAGOMAN_DATABASE_URL });
  const store = memoryStore(storage);
  const book = new MemoryBook(store, { perKey: 1, maxSegments: 1, maxSegmentChars: 1, maxFileBytes: 1 });
  expect(await book.sweep(Date.now() + STALE_IMPORT_MS + 1000)).toBe(1);
  await store.close();
  await storage.close();
  expect(await stagedRows()).toBe(0);
}

describe('SIGKILL in the middle of a 1,000,000-unit import', () => {
  it('SQLite: the memory is as it was', async () => {
    const data = join(dir, 'sqlite');
    const env = envFor(data);
    await scenario(env, async () => {
      try {
        const db = new Database(join(data, 'dragoman.db'), { readonly: true, fileMustExist: true });
        try {
          return (db.prepare("SELECT COUNT(*) AS n FROM memory_segments WHERE mem IN (SELECT num FROM memories WHERE state = 'staging')").get() as { n: number }).n;
        } finally {
          db.close();
        }
      } catch {
        return 0;
      }
    });
  }, 240_000);

  itNeeding('postgresql')('PostgreSQL: the memory is as it was', async () => {
    const url = process.env.DRAGOMAN_TEST_DATABASE_URL!;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const name = `tm_kill_${process.pid}`;
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
    const dbUrl = url.replace(/\/[^/]*$/, `/${name}`);
    const probe = new pg.Client({ connectionString: dbUrl });
    await probe.connect();
    try {
      await scenario(envFor(join(dir, 'pg'), dbUrl), async () => {
        try {
          return Number((await probe.query("SELECT COUNT(*) AS n FROM memory_segments WHERE mem IN (SELECT num FROM memories WHERE state = 'staging')")).rows[0].n);
        } catch {
          return 0;
        }
      });
    } finally {
      await probe.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }, 240_000);
});
