// `dragoman models pull` against a local imitation of the hub (no network exists here).
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readManifest } from '../../src/models/manifest.ts';
import { pullModel } from '../../src/models/pull.ts';
import { resolveRepo } from '../../src/models/presets.ts';
import { scanFolders } from '../../src/engine/model/registry.ts';
import { startFakeHub, type FakeHub } from './fake-hub.ts';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'models', 'tiny-marian-en-de');
const REPO = 'Xenova/tiny-marian-en-de';
const DECODER = 'onnx/decoder_model_merged_quantized.onnx';

let hub: FakeHub;
let modelsDir: string;
let log: string[];
const sink = { write: (t: string) => void log.push(t), isTTY: false };

beforeEach(async () => {
  hub = await startFakeHub({ repos: { [REPO]: FIXTURE }, token: 'hf_test_token' });
  modelsDir = await mkdtemp(join(tmpdir(), 'dragoman-pull-'));
  log = [];
});
afterEach(async () => {
  await hub.close();
  await rm(modelsDir, { recursive: true, force: true });
});

const pull = (extra: Partial<Parameters<typeof pullModel>[0]> = {}) =>
  pullModel({
    modelsDir,
    spec: REPO,
    hub: { endpoint: hub.url, token: 'hf_test_token' },
    log: sink,
    retryDelayMs: 1,
    ...extra,
  });

async function filesUnder(dir: string): Promise<string[]> {
  return ((await readdir(dir, { recursive: true, withFileTypes: true })) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('models pull', () => {
  it('downloads exactly the int8 files, byte for byte, with a manifest, and leaves no staging behind', async () => {
    const result = await pull();
    const dir = join(modelsDir, 'tiny-marian-en-de');
    expect(result.dir).toBe(dir);
    expect(await filesUnder(dir)).toEqual([
      'README.md',
      'config.json',
      'dragoman-manifest.json',
      'generation_config.json',
      'onnx/decoder_model_merged_quantized.onnx',
      'onnx/encoder_model_quantized.onnx',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    for (const f of ['config.json', 'tokenizer.json', DECODER]) {
      expect((await readFile(join(dir, f))).equals(await readFile(join(FIXTURE, f)))).toBe(true);
    }
    const manifest = await readManifest(dir);
    expect(manifest?.source).toMatchObject({ repo: REPO, revision: 'main', commit: hub.commit });
    expect(manifest?.precision).toBe('int8');
    expect(manifest?.files.map((f) => f.path)).not.toContain('dragoman-manifest.json');
    expect(manifest?.files.find((f) => f.path === DECODER)?.size).toBe((await stat(join(FIXTURE, DECODER))).size);
    // Only the model folder remains: no .pull-* staging, no .partial files.
    expect(await readdir(modelsDir)).toEqual(['tiny-marian-en-de']);
    // Only the first question names the branch (its answer gives the commit); every file, the first too, is then
    // asked for and downloaded at the pinned commit, with the token.
    const heads = hub.requests.filter((r) => r.method === 'HEAD');
    expect(heads[0]!.path).toContain('/resolve/main/');
    expect(heads.slice(1).every((r) => r.path.includes(`/resolve/${hub.commit}/`))).toBe(true);
    const gets = hub.requests.filter((r) => r.method === 'GET' && r.path.includes('/resolve/'));
    expect(gets.map((r) => r.path)).toContain(`/${REPO}/resolve/${hub.commit}/config.json`);
    expect(gets.every((r) => r.path.includes(`/resolve/${hub.commit}/`))).toBe(true);
    expect(hub.requests.filter((r) => r.path.includes('/resolve/')).every((r) => r.authorization === 'Bearer hf_test_token')).toBe(true);
    // Non-TTY progress: one line per file start and end, no carriage returns.
    expect(log.join('')).toContain(`${DECODER}: done`);
    expect(log.join('')).not.toContain('\r');
  });

  it('fp32 takes the full graphs instead', async () => {
    await pull({ precision: 'fp32' });
    const files = await filesUnder(join(modelsDir, 'tiny-marian-en-de'));
    expect(files).toContain('onnx/encoder_model.onnx');
    expect(files).toContain('onnx/decoder_model_merged.onnx');
    expect(files.some((f) => f.includes('quantized'))).toBe(false);
  });

  it('resumes an interrupted download with an HTTP Range request in the same run', async () => {
    hub.cutDownload(DECODER, 300_000);
    await pull();
    const gets = hub.requests.filter((r) => r.method === 'GET' && r.path.startsWith('/cdn/'));
    // The second request continues where the first stopped (at most the 300,000 bytes sent before the cut).
    const resumedAt = gets.map((r) => /^bytes=(\d+)-$/.exec(r.range ?? '')?.[1]).filter((x) => x !== undefined).map(Number);
    expect(resumedAt).toHaveLength(1);
    expect(resumedAt[0]).toBeGreaterThan(0);
    expect(resumedAt[0]).toBeLessThanOrEqual(300_000);
    const dir = join(modelsDir, 'tiny-marian-en-de');
    expect((await readFile(join(dir, DECODER))).equals(await readFile(join(FIXTURE, DECODER)))).toBe(true);
    expect(log.join('')).toMatch(/retrying/);
  });

  it('treats a response that ends cleanly but short as an interruption and resumes it', async () => {
    hub.endEarly(DECODER, 200_000);
    await pull();
    expect(hub.requests.some((r) => r.method === 'GET' && r.range === 'bytes=200000-')).toBe(true);
    const dir = join(modelsDir, 'tiny-marian-en-de');
    expect((await readFile(join(dir, DECODER))).equals(await readFile(join(FIXTURE, DECODER)))).toBe(true);
    expect(log.join('')).toMatch(/stopped after 200000 of \d+ bytes; retrying/);
  });

  it('breaks off a download that stalls (no data, no error) and resumes it', async () => {
    hub.stallDownload(DECODER, 100_000);
    await pull({ stallMs: 300 });
    const dir = join(modelsDir, 'tiny-marian-en-de');
    expect((await readFile(join(dir, DECODER))).equals(await readFile(join(FIXTURE, DECODER)))).toBe(true);
    expect(log.join('')).toMatch(/download interrupted \(no data for 0\.3 s\); retrying/);
    expect(hub.requests.some((r) => r.method === 'GET' && /^bytes=\d+-$/.test(r.range ?? ''))).toBe(true);
  });

  it('keeps the partial file when a run fails and resumes it on the next run; nothing is installed meanwhile', async () => {
    hub.cutDownload(DECODER, 500_000);
    await expect(pull({ retries: 0 })).rejects.toThrow(/interrupted/);
    expect(await readdir(modelsDir)).toEqual(['.pull-tiny-marian-en-de']);
    // What arrived before the cut (the server sent 500,000 bytes; the last of them may be lost with the socket).
    const partial = join(modelsDir, '.pull-tiny-marian-en-de', `${DECODER}.partial`);
    const kept = (await stat(partial)).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(500_000);

    hub.requests.length = 0;
    await pull();
    expect(hub.requests.some((r) => r.method === 'GET' && r.range === `bytes=${kept}-`)).toBe(true);
    // Files finished in the first run are not downloaded again.
    expect(hub.requests.some((r) => r.method === 'GET' && r.path.endsWith('/config.json'))).toBe(false);
    const dir = join(modelsDir, 'tiny-marian-en-de');
    expect((await readFile(join(dir, DECODER))).equals(await readFile(join(FIXTURE, DECODER)))).toBe(true);
    expect(await readdir(modelsDir)).toEqual(['tiny-marian-en-de']);
  });

  it('refuses a file whose sha256 is not the one the hub states, deletes it, installs nothing', async () => {
    hub.lieAboutSha(DECODER);
    await expect(pull()).rejects.toThrow(/refused onnx\/decoder_model_merged_quantized\.onnx: sha256 is [0-9a-f]{64}, the hub says/);
    expect(await readdir(modelsDir)).not.toContain('tiny-marian-en-de');
    await expect(stat(join(modelsDir, '.pull-tiny-marian-en-de', `${DECODER}.partial`))).rejects.toThrow();
  });

  it('refuses a small (non-LFS) file whose git blob id is not the ETag the hub sent', async () => {
    hub.lieAboutSha('tokenizer.json');
    await expect(pull()).rejects.toThrow(/refused tokenizer\.json: git blob id is [0-9a-f]{40}, the hub says/);
    expect(await readdir(modelsDir)).not.toContain('tiny-marian-en-de');
  });

  it('says clearly when the repository does not exist or needs a token', async () => {
    await expect(pull({ spec: 'Xenova/no-such-model' })).rejects.toThrow(/repository not found .*HF_TOKEN/);
    await expect(pull({ hub: { endpoint: hub.url } })).rejects.toThrow(/needs a token/);
  });

  it('refuses a second pull of the same model while one runs, and takes over a lock left by a dead process', async () => {
    const results = await Promise.allSettled([pull(), pull()]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason)).toMatch(/another "dragoman models pull" is installing tiny-marian-en-de \(pid \d+\)/);
    expect(await readdir(modelsDir)).toEqual(['tiny-marian-en-de']);

    // A pid that cannot exist (above the kernel's pid_max): the lock is stale.
    await writeFile(join(modelsDir, '.pull-tiny-marian-en-de.lock'), '99999999');
    await pull({ force: true });
    expect(await readdir(modelsDir)).toEqual(['tiny-marian-en-de']);
  });

  it('never writes outside the models directory', async () => {
    await expect(pull({ name: '../escaped' })).rejects.toThrow(/cannot be a model folder name/);
    await expect(pull({ spec: 'Xenova/..' })).rejects.toThrow(/cannot be a model folder name/);
    expect(await readdir(modelsDir)).toEqual([]);
  });

  it('does not overwrite an installed model unless forced', async () => {
    await pull();
    await expect(pull()).rejects.toThrow(/already exists.*--force/);
    await pull({ force: true });
    expect(await readdir(modelsDir)).toEqual(['tiny-marian-en-de']);
  });
});

describe('presets', () => {
  it('installed under another name (--name), a Marian model keeps its languages: dragoman.json from the repository name', async () => {
    await pull({ name: 'copy-en-de' });
    const renamed = await pull({ name: 'my-translator' });
    const dir = join(modelsDir, 'my-translator');
    expect(JSON.parse(await readFile(join(dir, 'dragoman.json'), 'utf8'))).toEqual({ family: 'marian', source: 'en', target: 'de' });
    expect(renamed.manifest.files.map((f) => f.path)).toContain('dragoman.json');
    const [, folder] = await scanFolders(modelsDir, 'int8'); // sorted: copy-en-de, my-translator
    expect(folder!.info.name).toBe('my-translator');
    expect(folder!.info.status).toBe('ok');
    expect([folder!.info.sources, folder!.info.targets]).toEqual([['eng_Latn'], ['deu_Latn']]);
    // A name that itself ends in <source>-<target> is read as it always was: no declaration is added.
    expect(await filesUnder(join(modelsDir, 'copy-en-de'))).not.toContain('dragoman.json');
  });

  it('maps short names to repositories', () => {
    expect(resolveRepo('opus-mt-en-de')).toEqual({ repo: 'Xenova/opus-mt-en-de', name: 'opus-mt-en-de' });
    expect(resolveRepo('opus-mt-fr-en').repo).toBe('Xenova/opus-mt-fr-en');
    expect(resolveRepo('opus-mt-tc-big-en-fr').repo).toBe('Xenova/opus-mt-tc-big-en-fr');
    expect(resolveRepo('nllb')).toEqual({ repo: 'Xenova/nllb-200-distilled-600M', name: 'nllb-200-distilled-600M' });
    expect(resolveRepo('m2m100')).toEqual({ repo: 'Xenova/m2m100_418M', name: 'm2m100_418M' });
    expect(resolveRepo('mbart50')).toEqual({ repo: 'Xenova/mbart-large-50-many-to-many-mmt', name: 'mbart-large-50-many-to-many-mmt' });
    expect(resolveRepo('Helsinki-NLP/opus-mt-en-de').name).toBe('opus-mt-en-de');
    expect(() => resolveRepo('gpt')).toThrow(/unknown model "gpt"/);
  });
});
