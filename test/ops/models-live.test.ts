// Installing and removing models on a running server (`dragoman serve` as a process of its own, real fixture models,
// DRAGOMAN_MODEL_MEMORY holding one model): `models import` shows in /v1/languages and translates without a restart;
// `models remove` takes the languages away while requests keep coming, and none of them gets a 500.
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/dispatch.ts';
import { readModelFolder } from '../../src/engine/model/model-folder.ts';
import { modelCost } from '../../src/engine/translate/resident-models.ts';
import { listening } from '../server-process.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURES = resolve(ROOT, 'test/fixtures/models');
const dir = mkdtempSync(join(tmpdir(), 'dragoman-models-live-'));
let child: ChildProcess | undefined;

afterAll(() => {
  try {
    if (child) process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
  rmSync(dir, { recursive: true, force: true });
});

async function cli(env: Record<string, string>, args: string[]): Promise<string> {
  const out: string[] = [];
  const code = await main(args, { env, out: (l) => void out.push(l), err: () => undefined });
  expect(code).toBe(0);
  return out.join('\n');
}

describe('models installed and removed while serving', () => {
  it('models import shows in /v1/languages and translates; models remove takes it away and no request gets a 500', async () => {
    const models = join(dir, 'models');
    mkdirSync(models);
    cpSync(join(FIXTURES, 'tiny-marian-en-de'), join(models, 'tiny-marian-en-de'), { recursive: true });
    const one = modelCost(await readModelFolder(join(FIXTURES, 'tiny-marian-en-de'), 'int8'), 1);
    const env = {
      DRAGOMAN_PORT: '0', DRAGOMAN_DATA_DIR: join(dir, 'data'), DRAGOMAN_MODELS_DIR: models, DRAGOMAN_WORKERS: '1',
      DRAGOMAN_INTRA_OP_THREADS: '1', DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_LOG_LEVEL: 'info',
      // One model at a time: the imported model evicts the other, and back.
      DRAGOMAN_MODEL_MEMORY: String(one),
    };
    // The archive to import, packed from a staging folder of its own.
    const staging = join(dir, 'staging');
    // The German→English fixture under a French→English name (its folder name says its languages): a language the
    // server does not list yet.
    cpSync(join(FIXTURES, 'tiny-marian-de-en'), join(staging, 'copy-fr-en'), { recursive: true });
    const tar = join(dir, 'fr-en.tar');
    await cli({ ...env, DRAGOMAN_MODELS_DIR: staging }, ['models', 'pack', 'copy-fr-en', '-o', tar]);
    const key = (JSON.parse(await cli(env, ['keys', 'create', '--plan', 'enterprise', '--json'])) as { key: string }).key;

    child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    });
    const server = await listening(child);
    const languages = async () => ((await (await fetch(`${server.url}/v1/languages`, { headers: { 'x-api-key': key } })).json()) as {
      data: { languages: { language: string }[] };
    }).data.languages.map((l) => l.language).sort();
    const translate = (source: string, target: string, q: string) => fetch(`${server.url}/v1/translate`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ q, source, target }),
    });
    expect(await languages()).toEqual(['de', 'en']);
    expect((await translate('fr', 'en', 'Das Haus ist klein.')).status).toBe(400); // no fr→en model yet

    await cli(env, ['models', 'import', tar]);
    const imported = Date.now();
    let seenAfter = -1;
    while (Date.now() - imported < 10_000) {
      const r = await translate('fr', 'en', 'Das Haus ist klein.');
      if (r.status === 200) {
        seenAfter = Date.now() - imported;
        const body = (await r.json()) as { data: { translations: { translatedText: string; model: string }[] } };
        expect(body.data.translations[0]!.translatedText).not.toBe('');
        expect(r.headers.get('x-dragoman-model')).toBe('copy-fr-en');
        break;
      }
      expect(r.status).toBe(400);
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(seenAfter).toBeGreaterThanOrEqual(0);
    expect(seenAfter).toBeLessThan(5_000);
    expect(await languages()).toEqual(['de', 'en', 'fr']);
    const health = (await (await fetch(`${server.url}/health`)).json()) as { modelsInstalled: number; modelsLoaded: number };
    expect(health).toMatchObject({ modelsInstalled: 2, modelsLoaded: 1 });

    // Requests both ways keep coming while the imported model is removed.
    const statuses: number[] = [];
    const bodies: string[] = [];
    let stop = false;
    const clients = Array.from({ length: 4 }, (_, i) => (async () => {
      while (!stop) {
        const r = i % 2 ? await translate('fr', 'en', `Das Haus ist klein, sagt Nummer ${i}.`) : await translate('en', 'de', `The house is small, says number ${i}.`);
        statuses.push(r.status);
        const text = await r.text();
        if (r.status !== 200) bodies.push(text);
      }
    })());
    await new Promise((res) => setTimeout(res, 500));
    await cli(env, ['models', 'remove', 'copy-fr-en']);
    const removed = Date.now();
    while (Date.now() - removed < 10_000 && (await languages()).length !== 2) await new Promise((res) => setTimeout(res, 50));
    expect(await languages()).toEqual(['de', 'en']);
    await new Promise((res) => setTimeout(res, 500));
    stop = true;
    await Promise.all(clients);
    expect((await translate('fr', 'en', 'Das Haus ist klein.')).status).toBe(400);
    expect((await translate('en', 'de', 'The house is small.')).status).toBe(200);
    expect(statuses.length).toBeGreaterThan(10);
    expect(statuses.filter((s) => s === 500)).toEqual([]);
    // Refusals are the route gone (400) or the model named as removed (503, retryable); nothing else.
    for (const b of bodies) expect(b).toMatch(/"fr"|French|fra_Latn|Model copy-fr-en was removed/);
    expect(server.output()).toMatch(/"msg":"models folder changed: routes updated"/);
  });
});
