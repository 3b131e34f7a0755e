// dragoman-manifest.json: the size and sha256 of every file of an installed model, written by pull and import,
// read by verify, list and pack. It is the model's own proof of integrity on a host with no network.
import { readdir, readFile, stat, writeFile, rename } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { sha256File } from './checksum.ts';
import { isSafeModelName, isSafeRelativePath } from './safe-names.ts';
import type { Precision } from '../config/env.ts';

export const MANIFEST_FILE = 'dragoman-manifest.json';
const FORMAT = 'dragoman-model-manifest/1';

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface ModelManifest {
  format: typeof FORMAT;
  name: string;
  /** Where the files came from, when known (pull). */
  source?: { repo: string; revision: string; commit?: string; endpoint?: string };
  /** What pull asked for (int4 and auto take the smallest graphs a repository has). */
  precision?: Precision;
  createdAt: string;
  files: ManifestFile[];
}

export class ManifestError extends Error {}

export function newManifest(name: string, files: ManifestFile[], extra: Partial<ModelManifest> = {}): ModelManifest {
  const sorted = [...files].sort((a, b) => a.path.localeCompare(b.path));
  return { format: FORMAT, name, ...extra, createdAt: new Date().toISOString(), files: sorted };
}

/** Checks shape and names: a manifest also arrives inside archives, i.e. from outside. */
/** A manifest is an object holding a list of file objects: 3 levels. Deeper is no manifest of ours. */
const MAX_MANIFEST_DEPTH = 8;

/** The deepest nesting of arrays and objects in a JSON text (outside strings), counted up to `limit + 1`. */
function jsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '[' || c === '{') {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === ']' || c === '}') depth--;
  }
  return deepest;
}

/** A file entry as a refusal shows it: its path when it has one, else its kind (never the whole of it). */
function describeEntry(f: unknown): string {
  const path = (f as { path?: unknown } | null)?.path;
  if (typeof path === 'string') return JSON.stringify(path.slice(0, 200));
  return f === null ? 'null' : Array.isArray(f) ? 'an array' : typeof f;
}

/**
 * Throws when a manifest's JSON (a model's, or a pack's list of them: `around` levels more) is nested deeper than
 * any manifest is, before anything walks it recursively (JSON.stringify of 100,000 levels overflows the stack).
 */
export function checkManifestDepth(text: string, origin: string, around = 0): void {
  const limit = MAX_MANIFEST_DEPTH + around;
  if (jsonDepth(text, limit) > limit) {
    throw new ManifestError(`${origin}: nested more than ${limit} levels deep (a manifest is an object with a list of files)`);
  }
}

export function parseManifest(text: string, origin: string): ModelManifest {
  checkManifestDepth(text, origin);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ManifestError(`${origin}: not valid JSON`);
  }
  const m = raw as Partial<ModelManifest>;
  if (m?.format !== FORMAT) throw new ManifestError(`${origin}: not a Dragoman model manifest (format ${String(m?.format)})`);
  if (typeof m.name !== 'string' || !isSafeModelName(m.name)) throw new ManifestError(`${origin}: bad model name`);
  if (!Array.isArray(m.files) || m.files.length === 0) throw new ManifestError(`${origin}: no files listed`);
  const seen = new Set<string>();
  for (const f of m.files) {
    const ok =
      f && typeof f.path === 'string' && isSafeRelativePath(f.path) && f.path !== MANIFEST_FILE &&
      Number.isSafeInteger(f.size) && f.size >= 0 && typeof f.sha256 === 'string' && /^[0-9a-f]{64}$/.test(f.sha256);
    if (!ok) throw new ManifestError(`${origin}: bad file entry ${describeEntry(f)}`);
    if (seen.has(f.path)) throw new ManifestError(`${origin}: ${f.path} listed twice`);
    seen.add(f.path);
  }
  return m as ModelManifest;
}

export async function readManifest(modelDir: string): Promise<ModelManifest | undefined> {
  const path = join(modelDir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return parseManifest(text, path);
}

export async function writeManifest(modelDir: string, manifest: ModelManifest): Promise<void> {
  const tmp = join(modelDir, `.${MANIFEST_FILE}.tmp`);
  await writeFile(tmp, JSON.stringify(manifest, null, 2) + '\n');
  await rename(tmp, join(modelDir, MANIFEST_FILE));
}

/**
 * Every file under a model folder (relative, forward slashes), except the manifest and dot files. Symbolic links are
 * followed — a Hugging Face cache snapshot is all links into its blob store, and the server reads through them — so
 * `pack` carries the files the links point to.
 */
export async function listModelFiles(modelDir: string): Promise<string[]> {
  const files: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const full = join(dir, e.name);
      // A link is what it points to (a dangling one is nothing).
      const target = e.isSymbolicLink() ? await stat(full).catch(() => undefined) : e;
      const rel = relative(modelDir, full).split(sep).join('/');
      // A link loop (or an absurdly deep tree) ends here rather than in a stack overflow.
      if (target?.isDirectory() && depth < 8) await walk(full, depth + 1);
      else if (target?.isFile() && rel !== MANIFEST_FILE) files.push(rel);
    }
  };
  await walk(modelDir, 0);
  return files.sort();
}

/** Hash a folder as it is now (for models installed by hand, before packing them). */
export async function manifestOfFolder(modelDir: string, name: string): Promise<ModelManifest> {
  const files: ManifestFile[] = [];
  for (const path of await listModelFiles(modelDir)) {
    const full = join(modelDir, path);
    files.push({ path, size: (await stat(full)).size, sha256: await sha256File(full) });
  }
  return newManifest(name, files);
}

export interface FileProblem {
  path: string;
  problem: 'missing' | 'size' | 'sha256';
  detail: string;
}

/**
 * Compare a folder with its manifest. `deep` hashes every file (verify); otherwise only presence and size are
 * checked (list: cheap enough to run on every call).
 */
export async function checkAgainstManifest(modelDir: string, manifest: ModelManifest, deep: boolean): Promise<FileProblem[]> {
  const problems: FileProblem[] = [];
  for (const f of manifest.files) {
    const full = join(modelDir, f.path);
    let size: number;
    try {
      size = (await stat(full)).size;
    } catch {
      problems.push({ path: f.path, problem: 'missing', detail: 'file is missing' });
      continue;
    }
    if (size !== f.size) {
      problems.push({ path: f.path, problem: 'size', detail: `${size} bytes, manifest says ${f.size}` });
      continue;
    }
    if (deep) {
      const sum = await sha256File(full);
      if (sum !== f.sha256) problems.push({ path: f.path, problem: 'sha256', detail: `sha256 ${sum}, manifest says ${f.sha256}` });
    }
  }
  return problems;
}
