// pack → import between two models directories, and the ways an archive can arrive damaged.
import { execFileSync } from 'node:child_process';
import { cp, lstat, mkdir, mkdtemp, open, readFile, readdir, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifestOfFolder, MANIFEST_FILE, readManifest, writeManifest } from '../../src/models/manifest.ts';
import { importPack, packModels, PACK_MANIFEST } from '../../src/models/pack.ts';
import { TarWriter } from '../../src/models/tar.ts';
import { verifyModel, verifyModels } from '../../src/models/verify.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'models');
const MARIAN = 'tiny-marian-en-de';
const NLLB = 'tiny-nllb';
const DECODER = 'onnx/decoder_model_merged_quantized.onnx';

let root: string;
let source: string;
let dest: string;
let archive: string;
const log = { write: () => undefined };

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'dragoman-pack-'));
  source = join(root, 'source');
  dest = join(root, 'dest');
  archive = join(root, 'usb', 'models.tar');
  await mkdir(dest, { recursive: true });
  await cp(join(FIXTURES, MARIAN), join(source, MARIAN), { recursive: true });
  await cp(join(FIXTURES, NLLB), join(source, NLLB), { recursive: true });
  // One model as `pull` leaves it (with a manifest), one as copied by hand (without).
  await writeManifest(join(source, MARIAN), await manifestOfFolder(join(source, MARIAN), MARIAN));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function sameTree(a: string, b: string): Promise<string[]> {
  const files = (await readdir(a, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && e.name !== MANIFEST_FILE)
    .map((e) => join(e.parentPath, e.name).slice(a.length + 1));
  for (const f of files) expect((await readFile(join(b, f))).equals(await readFile(join(a, f))), f).toBe(true);
  return files;
}

async function copyPrefix(from: string, to: string, bytes: number): Promise<void> {
  const buf = (await readFile(from)).subarray(0, bytes);
  await writeFile(to, buf);
}

describe('models pack / import', () => {
  it('round-trips two models byte for byte, with manifests, and verify says ok', async () => {
    const packed = await packModels({ modelsDir: source, names: [MARIAN, NLLB], output: archive, log });
    expect(packed.models).toEqual([MARIAN, NLLB]);
    expect(await readdir(join(root, 'usb'))).toEqual(['models.tar']);

    const imported = await importPack({ modelsDir: dest, file: archive, log });
    expect(imported.models).toEqual([MARIAN, NLLB]);
    expect(await readdir(dest)).toEqual([MARIAN, NLLB]);
    for (const name of [MARIAN, NLLB]) {
      const compared = await sameTree(join(source, name), join(dest, name));
      expect(compared.length).toBeGreaterThan(8);
      expect((await readManifest(join(dest, name)))?.files.length).toBe(compared.length);
    }
    const results = await verifyModels(dest);
    expect(results.map((r) => [r.name, r.status])).toEqual([
      [MARIAN, 'ok'],
      [NLLB, 'ok'],
    ]);
  });

  it('writes a standard tar that GNU tar can list', async () => {
    await packModels({ modelsDir: source, names: [MARIAN], output: archive, log });
    const listing = execFileSync('tar', ['-tvf', archive], { encoding: 'utf8' });
    expect(listing).toContain('dragoman-pack.json');
    expect(listing).toContain(`${MARIAN}/${DECODER}`);
  });

  it('keeps paths longer than 100 bytes (ustar prefix field)', async () => {
    const deep = `${'long-directory-name/'.repeat(6)}weights.bin`;
    await mkdir(join(source, MARIAN, deep, '..'), { recursive: true });
    await writeFile(join(source, MARIAN, deep), 'payload');
    await rm(join(source, MARIAN, MANIFEST_FILE));
    await packModels({ modelsDir: source, names: [MARIAN], output: archive, log });
    expect(execFileSync('tar', ['-tf', archive], { encoding: 'utf8' })).toContain(`${MARIAN}/${deep}`);
    await importPack({ modelsDir: dest, file: archive, log });
    expect(await readFile(join(dest, MARIAN, deep), 'utf8')).toBe('payload');
  });

  it('refuses a truncated archive and installs nothing', async () => {
    await packModels({ modelsDir: source, names: [MARIAN, NLLB], output: archive, log });
    const cut = join(root, 'cut.tar');
    await copyPrefix(archive, cut, Math.floor((await stat(archive)).size * 0.6));
    await expect(importPack({ modelsDir: dest, file: cut, log })).rejects.toThrow(
      /refused .*cut\.tar: .*truncated or damaged: .* should have \d+ bytes but the archive ends after \d+\. Nothing was installed/,
    );
    expect(await readdir(dest)).toEqual([]);
  });

  it('refuses an archive cut exactly between two files', async () => {
    await packModels({ modelsDir: source, names: [MARIAN], output: archive, log });
    // Header (512) + data + padding of the first entries, found by walking the archive's own headers.
    const buf = await readFile(archive);
    let pos = 0;
    for (let i = 0; i < 3; i++) {
      const size = parseInt(buf.toString('ascii', pos + 124, pos + 135), 8);
      pos += 512 + Math.ceil(size / 512) * 512;
    }
    const cut = join(root, 'cut.tar');
    await copyPrefix(archive, cut, pos);
    await expect(importPack({ modelsDir: dest, file: cut, log })).rejects.toThrow(/archive is incomplete, \d+ file\(s\) missing/);
    expect(await readdir(dest)).toEqual([]);
  });

  it('refuses an archive with one flipped byte, naming the file', async () => {
    await packModels({ modelsDir: source, names: [MARIAN], output: archive, log });
    const buf = await readFile(archive);
    const at = buf.indexOf(Buffer.from(`${MARIAN}/${DECODER}`));
    buf[at + 512 + 1000] = buf[at + 512 + 1000]! ^ 0xff;
    await writeFile(archive, buf);
    await expect(importPack({ modelsDir: dest, file: archive, log })).rejects.toThrow(
      new RegExp(`${MARIAN}/onnx/decoder_model_merged_quantized\\.onnx has sha256 [0-9a-f]{64}, the manifest says`),
    );
    expect(await readdir(dest)).toEqual([]);
  });

  it('refuses a manifest nested 100,000 levels deep by name, in a pack and in a models folder', async () => {
    const nested = `{"format":"dragoman-model-manifest/1","name":"${MARIAN}","files":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`;
    await writeFile(join(source, MARIAN, MANIFEST_FILE), nested);
    await expect(readManifest(join(source, MARIAN))).rejects.toThrow(/nested more than \d+ levels deep/);
    // A pack whose list of models holds it (JSON.stringify of each model overflowed the stack): refused by name.
    const hostile = join(root, 'hostile.tar');
    const tar = await TarWriter.create(hostile);
    await tar.addBuffer(PACK_MANIFEST, Buffer.from(`{"format":"dragoman-pack/1","createdAt":"2026-01-01","models":[${nested}]}`));
    await tar.finish();
    await expect(importPack({ modelsDir: dest, file: hostile, log })).rejects.toThrow(/nested more than \d+ levels deep/);
    expect(await readdir(dest)).toEqual([]);
  });

  it('refuses a file that is not a pack', async () => {
    const bogus = join(root, 'bogus.tar');
    await writeFile(bogus, Buffer.alloc(4096, 7));
    await expect(importPack({ modelsDir: dest, file: bogus, log })).rejects.toThrow(/bad header checksum/);
  });

  it('packs a folder of symbolic links (a Hugging Face cache snapshot) as the files they point to', async () => {
    // snapshot/<name>/... -> blobs/<sha>: every file a link, the onnx folder too.
    const blobs = join(root, 'blobs');
    const linked = join(root, 'hf');
    await mkdir(join(linked, 'opus-mt-en-de', 'onnx'), { recursive: true });
    await cp(join(FIXTURES, MARIAN), blobs, { recursive: true });
    for (const f of await readdir(blobs, { recursive: true, withFileTypes: true })) {
      if (!f.isFile()) continue;
      const rel = join(f.parentPath, f.name).slice(blobs.length + 1);
      await symlink(join(blobs, rel), join(linked, 'opus-mt-en-de', rel));
    }
    const packed = await packModels({ modelsDir: linked, names: ['opus-mt-en-de'], output: archive, log });
    expect(packed.bytes).toBeGreaterThan(1_000_000);
    await importPack({ modelsDir: dest, file: archive, log });
    const files = await sameTree(blobs, join(dest, 'opus-mt-en-de'));
    expect(files).toContain(DECODER);
    expect((await lstat(join(dest, 'opus-mt-en-de', DECODER))).isFile()).toBe(true); // a real file now
  });

  it('does not replace an installed model unless forced', async () => {
    await packModels({ modelsDir: source, names: [MARIAN], output: archive, log });
    await importPack({ modelsDir: dest, file: archive, log });
    await expect(importPack({ modelsDir: dest, file: archive, log })).rejects.toThrow(/already exists.*--force/);
    await importPack({ modelsDir: dest, file: archive, log, force: true });
    expect(await readdir(dest)).toEqual([MARIAN]);
  });

  it('will not pack a model that no longer matches its manifest', async () => {
    await truncate(join(source, MARIAN, DECODER), 1000);
    await expect(packModels({ modelsDir: source, names: [MARIAN], output: archive, log })).rejects.toThrow(
      /does not match its manifest .*decoder_model_merged_quantized\.onnx: 1000 bytes/,
    );
    await expect(stat(archive)).rejects.toThrow();
  });
});

describe('models verify', () => {
  it('finds a changed byte (corrupt) and a missing file (incomplete)', async () => {
    const dir = join(source, MARIAN);
    expect((await verifyModel(source, MARIAN)).status).toBe('ok');
    const fh = await open(join(dir, 'tokenizer.json'), 'r+');
    await fh.write(Buffer.from('X'), 0, 1, 10);
    await fh.close();
    const corrupt = await verifyModel(source, MARIAN);
    expect(corrupt.status).toBe('corrupt');
    expect(corrupt.problems).toEqual([expect.objectContaining({ path: 'tokenizer.json', problem: 'sha256' })]);
    await rm(join(dir, 'config.json'));
    expect((await verifyModel(source, MARIAN)).status).toBe('incomplete');
    expect((await verifyModel(source, NLLB)).status).toBe('no-manifest');
  });
});
