// `dragoman models pull`: every needed file goes to a staging folder inside the models directory (so interrupted
// downloads resume on the next run and the final rename is atomic), is checked against the size and hash the hub
// states, and only a complete, checked model is moved to DRAGOMAN_MODELS_DIR/<name>.
import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DECLARATION_FILE, languagesFromName } from '../engine/model/model-folder.ts';
import { resolveLanguage } from '../languages/catalog.ts';
import { gitBlobSha1File, sha256File } from './checksum.ts';
import { downloadToPartial, fileMetadata, HubError, type HubSettings, type RemoteFile } from './hub.ts';
import { newManifest, writeManifest, type ManifestFile, type ModelManifest } from './manifest.ts';
import { knownTranslator } from './known-translators.ts';
import { neededFiles, type PullPrecision, type RepoLayout } from './needed-files.ts';
import { resolveRepo } from './presets.ts';
import { fileProgress, formatBytes, type ProgressSink } from './progress.ts';
import { installFolder, pathExists } from './install.ts';
import { isSafeModelName } from './safe-names.ts';

export interface PullOptions {
  modelsDir: string;
  /** Repository (`Xenova/opus-mt-en-de`) or preset (`opus-mt-en-de`, `nllb`). */
  spec: string;
  revision?: string;
  /** Default int8; `int4` and `auto` take the smallest graphs a decoder-only repository has. */
  precision?: PullPrecision;
  /** Folder name; default the repository's name. */
  name?: string;
  /** Replace an installed model of the same name. */
  force?: boolean;
  hub: HubSettings;
  log: ProgressSink;
  /** Extra attempts per file after a network failure, each resuming where the last stopped. */
  retries?: number;
  retryDelayMs?: number;
  /** A download that receives nothing for this long is broken off and resumed (default 60 s). */
  stallMs?: number;
}

export interface PullResult {
  name: string;
  dir: string;
  manifest: ModelManifest;
}

const STATE_FILE = '.pull-state.json';

export class ChecksumError extends Error {}

/**
 * Asks the hub about files at one commit: the first answer gives the commit the revision points at, and every later
 * file is asked for at that commit, so a push to the branch during the download cannot mix two versions.
 */
class PinnedRepo {
  commit: string | undefined;
  private revision: string;

  constructor(
    private readonly hub: HubSettings,
    readonly repo: string,
    revision: string,
  ) {
    this.revision = revision;
  }

  async meta(path: string): Promise<RemoteFile | undefined> {
    let meta = await fileMetadata(this.hub, this.repo, this.revision, path);
    if (meta?.commit && !this.commit) {
      this.commit = meta.commit;
      // This first file too is fetched at the commit, not at the branch it was asked for.
      if (this.commit !== this.revision) meta = (await fileMetadata(this.hub, this.repo, this.commit, path)) ?? meta;
      this.revision = this.commit;
    }
    return meta;
  }
}

/**
 * Which layout the repository is in: the model builder's writes genai_config.json; a decoder-only Optimum export has
 * onnx/model*.onnx where an encoder-decoder one has onnx/encoder_model*.onnx.
 */
async function layoutOf(pinned: PinnedRepo): Promise<RepoLayout> {
  if (await pinned.meta('genai_config.json')) return 'genai';
  for (const graph of ['onnx/model.onnx', 'onnx/model_quantized.onnx', 'onnx/model_q4.onnx']) {
    if (await pinned.meta(graph)) return 'decoder-only';
  }
  return 'encoder-decoder';
}

async function planFiles(opts: { hub: HubSettings; precision: PullPrecision; revision: string }, repo: string) {
  const pinned = new PinnedRepo(opts.hub, repo, opts.revision);
  // Every layout has a tokenizer.json: asking for it first pins the commit before the layout is probed.
  const tokenizer = await pinned.meta('tokenizer.json');
  const layout = await layoutOf(pinned);
  const found: RemoteFile[] = [];
  const missing: string[] = [];
  for (const wanted of neededFiles(layout, opts.precision)) {
    if (wanted.path === 'tokenizer.json' && tokenizer) {
      found.push(tokenizer);
      continue;
    }
    const tried: string[] = [];
    let choice: typeof wanted | undefined = wanted;
    let meta: RemoteFile | undefined;
    while (choice && !(meta = await pinned.meta(choice.path))) {
      tried.push(choice.path);
      choice = choice.fallback;
    }
    if (meta && choice) {
      found.push(meta);
      for (const p of choice.companions ?? []) {
        const m = await pinned.meta(p);
        if (m) found.push(m);
      }
    } else if (!wanted.optional) missing.push(tried.length > 1 ? `${tried[0]} (nor ${tried.slice(1).join(', ')})` : tried[0]!);
  }
  if (missing.length > 0) {
    throw new HubError(
      `${repo}@${opts.revision} is not a model in an ONNX layout Dragoman reads (${layout}): missing ${missing.join(', ')}`,
      false,
    );
  }
  return { files: found, commit: pinned.commit, layout };
}

async function checkFile(path: string, remote: RemoteFile): Promise<string> {
  const size = (await stat(path)).size;
  if (remote.size !== undefined && size !== remote.size) {
    throw new ChecksumError(`${remote.path}: got ${size} bytes, the hub says ${remote.size}`);
  }
  const sha256 = await sha256File(path);
  if (remote.sha256 && sha256 !== remote.sha256) {
    throw new ChecksumError(`${remote.path}: sha256 is ${sha256}, the hub says ${remote.sha256}`);
  }
  if (!remote.sha256 && remote.gitSha1) {
    const blob = await gitBlobSha1File(path);
    if (blob !== remote.gitSha1) throw new ChecksumError(`${remote.path}: git blob id is ${blob}, the hub says ${remote.gitSha1}`);
  }
  return sha256;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function fetchOne(opts: PullOptions, staging: string, remote: RemoteFile): Promise<ManifestFile> {
  const finalPath = join(staging, remote.path);
  const partialPath = `${finalPath}.partial`;
  await mkdir(dirname(finalPath), { recursive: true });
  // Finished in an earlier run: keep it if it still checks out.
  if (await pathExists(finalPath)) {
    try {
      return { path: remote.path, size: (await stat(finalPath)).size, sha256: await checkFile(finalPath, remote) };
    } catch {
      await rm(finalPath, { force: true });
    }
  }
  const retries = opts.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    const progress = fileProgress(opts.log, remote.path);
    try {
      await downloadToPartial(opts.hub, remote, partialPath, progress, opts.stallMs);
      break;
    } catch (e) {
      const retryable = e instanceof HubError && e.retryable;
      if (!retryable || attempt >= retries) {
        progress.fail(`failed: ${(e as Error).message}${retryable ? ' (run the same command again to resume)' : ''}`);
        throw e;
      }
      progress.fail(`${(e as Error).message}; retrying (${attempt + 1}/${retries})`);
      await sleep((opts.retryDelayMs ?? 1000) * (attempt + 1));
    }
  }
  let sha256: string;
  try {
    sha256 = await checkFile(partialPath, remote);
  } catch (e) {
    // Resuming a wrong file would only append to the damage: start that file from scratch next time.
    await rm(partialPath, { force: true });
    throw new ChecksumError(`refused ${(e as Error).message}; the download was deleted, nothing was installed`);
  }
  await rename(partialPath, finalPath);
  return { path: remote.path, size: (await stat(finalPath)).size, sha256 };
}

export async function pullModel(opts: PullOptions): Promise<PullResult> {
  const { repo, name: repoName } = resolveRepo(opts.spec);
  const name = opts.name ?? repoName;
  if (!isSafeModelName(name)) throw new Error(`"${name}" cannot be a model folder name (letters, digits, . _ - @ +; not starting with a dot)`);
  const precision = opts.precision ?? 'int8';
  const revision = opts.revision ?? 'main';
  const target = join(opts.modelsDir, name);
  if (!opts.force && (await pathExists(target))) {
    throw new Error(`${target} already exists: remove it first or pass --force to replace it`);
  }
  await mkdir(opts.modelsDir, { recursive: true });

  const unlock = await lockPull(opts.modelsDir, name);
  try {
    const { files, commit, layout } = await planFiles({ hub: opts.hub, precision, revision }, repo);
    const total = files.reduce((n, f) => n + (f.size ?? 0), 0);
    opts.log.write(
      `Pulling ${repo}@${revision}${commit && commit !== revision ? ` (${commit.slice(0, 12)})` : ''}, ${precision}: ` +
        `${files.length} files, ${formatBytes(total)} → ${target}\n`,
    );

    // One staging folder per model name; a leftover from another repository/commit/precision is discarded, not resumed.
    const staging = join(opts.modelsDir, `.pull-${name}`);
    const state = JSON.stringify({ repo, commit: commit ?? revision, precision, endpoint: opts.hub.endpoint });
    const previous = await readFile(join(staging, STATE_FILE), 'utf8').catch(() => undefined);
    if (previous !== state) await rm(staging, { recursive: true, force: true });
    await mkdir(staging, { recursive: true });
    await writeFile(join(staging, STATE_FILE), state);

    const entries: ManifestFile[] = [];
    for (const remote of files) entries.push(await fetchOne(opts, staging, remote));

    const identity =
      layout === 'encoder-decoder'
        ? await identityForRename(staging, name, repoName, entries)
        : await translatorDeclaration(staging, repo, entries, opts.log);
    if (identity) entries.push(identity);
    const manifest = newManifest(name, entries, {
      source: { repo, revision, ...(commit ? { commit } : {}), endpoint: opts.hub.endpoint },
      precision,
    });
    await rm(join(staging, STATE_FILE), { force: true });
    await writeManifest(staging, manifest);
    await installFolder(staging, target, Boolean(opts.force));
    opts.log.write(`Installed ${name} (${formatBytes(total)}) in ${target}; a running server serves it within seconds\n`);
    return { name, dir: target, manifest };
  } finally {
    await unlock();
  }
}

/**
 * A Marian model says its languages only through its folder name (`opus-mt-en-de`). Installed under another name
 * (`--name en-de-fp32`), it would not load: the languages the repository's name gives are written to
 * dragoman.json (and so into the manifest), unless the repository ships its own or the new name still says them.
 */
async function identityForRename(staging: string, name: string, repoName: string, entries: ManifestFile[]): Promise<ManifestFile | undefined> {
  const named = languagesFromName(name);
  const nameSaysLanguages = named !== undefined && named.every((code) => resolveLanguage(code) !== undefined);
  if (name === repoName || entries.some((e) => e.path === DECLARATION_FILE) || nameSaysLanguages) return undefined;
  const config = JSON.parse(await readFile(join(staging, 'config.json'), 'utf8').catch(() => '{}')) as { model_type?: unknown };
  const languages = languagesFromName(repoName);
  if (config.model_type !== 'marian' || !languages) return undefined;
  const path = join(staging, DECLARATION_FILE);
  await writeFile(path, `${JSON.stringify({ family: 'marian', source: languages[0], target: languages[1] }, null, 2)}\n`);
  return { path: DECLARATION_FILE, size: (await stat(path)).size, sha256: await sha256File(path) };
}

/**
 * An LLM translator's folder must say how to ask it (dragoman.json: its prompt and languages). A repository that
 * ships one keeps it; for an export of a model whose card Dragoman knows, the card's prompt is written.
 */
async function translatorDeclaration(
  staging: string,
  repo: string,
  entries: ManifestFile[],
  log: ProgressSink,
): Promise<ManifestFile | undefined> {
  if (entries.some((e) => e.path === DECLARATION_FILE)) return undefined;
  const known = knownTranslator(repo);
  if (!known) {
    log.write(
      `${repo} is a decoder-only model Dragoman has no prompt for: write its ${DECLARATION_FILE} ` +
        `(docs/models.md, "LLM translators") or the server refuses it\n`,
    );
    return undefined;
  }
  const path = join(staging, DECLARATION_FILE);
  await writeFile(path, `${JSON.stringify(known.declaration(await chatTemplateOf(staging)), null, 2)}\n`);
  log.write(`Wrote ${DECLARATION_FILE}: ${known.name}\n`);
  return { path: DECLARATION_FILE, size: (await stat(path)).size, sha256: await sha256File(path) };
}

/** The chat template the folder ships: its own file, else tokenizer_config.json's `chat_template`. */
async function chatTemplateOf(dir: string): Promise<string | undefined> {
  const own = await readFile(join(dir, 'chat_template.jinja'), 'utf8').catch(() => undefined);
  if (own !== undefined) return own;
  const config = JSON.parse(await readFile(join(dir, 'tokenizer_config.json'), 'utf8').catch(() => '{}')) as { chat_template?: unknown };
  const template = config.chat_template;
  if (typeof template === 'string') return template;
  // Older repositories list named templates: [{ name, template }].
  if (Array.isArray(template)) return template.map((t) => String((t as { template?: unknown }).template ?? '')).join('\n');
  return undefined;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Two pulls of one name would write the same staging folder: the second is refused while the first runs. The lock
 * file appears with its pid already in it (written aside, then hard-linked into place, which fails if it exists):
 * a lock created empty and filled after was read as empty, so stale, by a second pull that then took it too.
 */
async function lockPull(modelsDir: string, name: string): Promise<() => Promise<void>> {
  const path = join(modelsDir, `.pull-${name}.lock`);
  const mine = `${path}.${process.pid}.${randomUUID()}`;
  await writeFile(mine, String(process.pid));
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(mine, path);
        return () => rm(path, { force: true });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const held = await readFile(path, 'utf8').catch(() => '');
        const pid = Number(held);
        if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
          throw new Error(`another "dragoman models pull" is installing ${name} (pid ${pid}); wait for it to finish`);
        }
        // Left by a process that no longer exists; removed only if it is still that one's.
        if ((await readFile(path, 'utf8').catch(() => '')) === held) await rm(path, { force: true });
      }
    }
  } finally {
    await rm(mine, { force: true });
  }
  throw new Error(`cannot take the lock ${path}`);
}


