// `dragoman models verify`: re-hash every file of installed models against their dragoman-manifest.json.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { checkAgainstManifest, readManifest, type FileProblem } from './manifest.ts';
import { isSafeModelName } from './safe-names.ts';
import { pathExists } from './install.ts';

export interface VerifyResult {
  name: string;
  status: 'ok' | 'incomplete' | 'corrupt' | 'no-manifest';
  files: number;
  problems: FileProblem[];
}

/** Model folders: subfolders not starting with a dot (dot folders are staging areas of pull/import). */
export async function modelFolders(modelsDir: string): Promise<string[]> {
  try {
    const entries = await readdir(modelsDir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

export async function verifyModel(modelsDir: string, name: string, deep = true): Promise<VerifyResult> {
  const dir = join(modelsDir, name);
  if (!isSafeModelName(name) || !(await pathExists(dir))) throw new Error(`no model "${name}" in ${modelsDir}`);
  const manifest = await readManifest(dir).catch((e: Error) => {
    throw new Error(`${name}: unreadable manifest: ${e.message}`);
  });
  if (!manifest) return { name, status: 'no-manifest', files: 0, problems: [] };
  const problems = await checkAgainstManifest(dir, manifest, deep);
  const status = problems.length === 0 ? 'ok' : problems.some((p) => p.problem === 'missing') ? 'incomplete' : 'corrupt';
  return { name, status, files: manifest.files.length, problems };
}

export async function verifyModels(modelsDir: string, names?: string[]): Promise<VerifyResult[]> {
  const list = names && names.length > 0 ? names : await modelFolders(modelsDir);
  const results: VerifyResult[] = [];
  for (const name of list) results.push(await verifyModel(modelsDir, name));
  return results;
}
