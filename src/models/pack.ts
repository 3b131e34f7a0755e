// Moving models to a host with no network: `pack` writes one ustar archive whose FIRST entry is a manifest of every
// file's size and sha256; `import` checks every byte against it into a staging folder and installs nothing unless
// all of it checks out.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { installFolder, pathExists } from './install.ts';
import {
  checkAgainstManifest,
  MANIFEST_FILE,
  manifestOfFolder,
  checkManifestDepth,
  parseManifest,
  readManifest,
  writeManifest,
  type ManifestFile,
  type ModelManifest,
} from './manifest.ts';
import { formatBytes, type ProgressSink } from './progress.ts';
import { isSafeModelName } from './safe-names.ts';
import { TarError, TarReader, TarWriter } from './tar.ts';
import { unusableReason } from './usable.ts';

export const PACK_MANIFEST = 'dragoman-pack.json';
const PACK_FORMAT = 'dragoman-pack/1';

interface PackManifest {
  format: typeof PACK_FORMAT;
  createdAt: string;
  models: ModelManifest[];
}

export class PackError extends Error {}

export async function packModels(opts: {
  modelsDir: string;
  names: string[];
  output: string;
  log: ProgressSink;
}): Promise<{ models: string[]; bytes: number }> {
  const { modelsDir, names, output, log } = opts;
  if (names.length === 0) throw new PackError('name at least one model to pack');
  const manifests: ModelManifest[] = [];
  for (const name of new Set(names)) {
    const dir = join(modelsDir, name);
    if (!isSafeModelName(name) || !(await pathExists(dir))) throw new PackError(`no model "${name}" in ${modelsDir}`);
    let manifest = await readManifest(dir);
    if (manifest) {
      const problems = await checkAgainstManifest(dir, manifest, false);
      if (problems.length > 0) {
        throw new PackError(
          `${name} does not match its manifest (${problems.map((p) => `${p.path}: ${p.detail}`).join('; ')}); ` +
            `run "dragoman models verify ${name}"`,
        );
      }
    }
    const unusable = await unusableReason(dir);
    if (unusable) throw new PackError(`${name} would not load (${unusable}); fix or reinstall it before packing (nothing was written)`);
    if (manifest) {
      manifest = { ...manifest, name };
    } else {
      log.write(`${name}: no ${MANIFEST_FILE} (installed by hand), hashing its files\n`);
      manifest = await manifestOfFolder(dir, name);
    }
    manifests.push(manifest);
  }

  const pack: PackManifest = { format: PACK_FORMAT, createdAt: new Date().toISOString(), models: manifests };
  const partial = `${output}.partial`;
  await mkdir(dirname(output), { recursive: true });
  const tar = await TarWriter.create(partial);
  try {
    await tar.addBuffer(PACK_MANIFEST, Buffer.from(JSON.stringify(pack, null, 2) + '\n'));
    for (const m of manifests) {
      for (const f of m.files) {
        const full = join(modelsDir, m.name, f.path);
        const sha = await tar.addFile(`${m.name}/${f.path}`, full, f.size, (await stat(full)).mtimeMs / 1000);
        if (sha !== f.sha256) {
          throw new PackError(`${m.name}/${f.path} does not match its manifest (sha256 ${sha}, expected ${f.sha256}); run "dragoman models verify ${m.name}"`);
        }
      }
      log.write(`${m.name}: ${m.files.length} files, ${formatBytes(m.files.reduce((n, f) => n + f.size, 0))}\n`);
    }
    await tar.finish();
  } catch (e) {
    await tar.abort();
    await rm(partial, { force: true });
    throw e;
  }
  await rename(partial, output);
  return { models: manifests.map((m) => m.name), bytes: (await stat(output)).size };
}

function parsePack(text: string, origin: string): PackManifest {
  checkManifestDepth(text, `${origin}: ${PACK_MANIFEST}`, 2); // the pack's object and its list of models
  let raw: Partial<PackManifest>;
  try {
    raw = JSON.parse(text) as Partial<PackManifest>;
  } catch {
    throw new PackError(`${origin}: ${PACK_MANIFEST} is not valid JSON (damaged archive)`);
  }
  if (raw.format !== PACK_FORMAT || !Array.isArray(raw.models) || raw.models.length === 0) {
    throw new PackError(`${origin}: ${PACK_MANIFEST} is not a Dragoman pack manifest`);
  }
  const models = raw.models.map((m, i) => parseManifest(JSON.stringify(m), `${origin} model #${i + 1}`));
  if (new Set(models.map((m) => m.name)).size !== models.length) throw new PackError(`${origin}: a model is listed twice`);
  return { format: PACK_FORMAT, createdAt: String(raw.createdAt), models };
}

export async function importPack(opts: {
  modelsDir: string;
  file: string;
  force?: boolean;
  log: ProgressSink;
}): Promise<{ models: string[] }> {
  const { modelsDir, file, log } = opts;
  const damaged = (detail: string) => new PackError(`refused ${file}: ${detail}. Nothing was installed; copy the archive again.`);
  const reader = await TarReader.open(file);
  const staging = join(modelsDir, `.import-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const first = await reader.next();
    if (!first || first.name !== PACK_MANIFEST) {
      throw new PackError(`${file} is not a Dragoman model pack (it must start with ${PACK_MANIFEST}; make one with "dragoman models pack")`);
    }
    const pack = parsePack((await reader.readAll(first, 64 << 20)).toString('utf8'), file);
    for (const m of pack.models) {
      if (!opts.force && (await pathExists(join(modelsDir, m.name)))) {
        throw new PackError(`${join(modelsDir, m.name)} already exists: remove it first or pass --force to replace it`);
      }
    }

    const expected = new Map<string, ManifestFile>(
      pack.models.flatMap((m) => m.files.map((f) => [`${m.name}/${f.path}`, f] as [string, ManifestFile])),
    );
    const seen = new Set<string>();
    await mkdir(staging, { recursive: true });
    for (let entry = await reader.next(); entry; entry = await reader.next()) {
      const want = expected.get(entry.name);
      if (!want) throw damaged(`${entry.name} is not in the pack's manifest`);
      if (seen.has(entry.name)) throw damaged(`${entry.name} appears twice`);
      if (entry.size !== want.size) throw damaged(`${entry.name} has ${entry.size} bytes, the manifest says ${want.size}`);
      const dest = join(staging, entry.name);
      await mkdir(dirname(dest), { recursive: true });
      const out = await open(dest, 'w');
      const hash = createHash('sha256');
      try {
        for await (const part of reader.content(entry)) {
          hash.update(part);
          await out.write(part);
        }
      } finally {
        await out.close();
      }
      const sha = hash.digest('hex');
      if (sha !== want.sha256) throw damaged(`${entry.name} has sha256 ${sha}, the manifest says ${want.sha256}`);
      seen.add(entry.name);
    }
    const missing = [...expected.keys()].filter((k) => !seen.has(k));
    if (missing.length > 0) {
      throw damaged(`the archive is incomplete, ${missing.length} file(s) missing (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''})`);
    }
    const total = [...expected.values()].reduce((n, f) => n + f.size, 0);
    log.write(`Verified ${expected.size} files (${formatBytes(total)}) against ${PACK_MANIFEST}\n`);

    // Whole and as packed, but would the server load it? A pack made by hand or by an older version may carry a
    // folder that never worked; refusing it here keeps the installed models as they were.
    for (const m of pack.models) {
      const unusable = await unusableReason(join(staging, m.name));
      if (unusable) throw new PackError(`refused ${file}: ${m.name} arrived intact but would not load (${unusable}). Nothing was installed.`);
    }
    for (const m of pack.models) {
      await writeManifest(join(staging, m.name), m);
      await installFolder(join(staging, m.name), join(modelsDir, m.name), Boolean(opts.force));
      log.write(`Installed ${m.name} in ${join(modelsDir, m.name)}\n`);
    }
    return { models: pack.models.map((m) => m.name) };
  } catch (e) {
    if (e instanceof TarError) throw damaged(e.message);
    throw e;
  } finally {
    await reader.close();
    await rm(staging, { recursive: true, force: true });
  }
}
