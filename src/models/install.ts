// The last step of pull and import: a fully checked folder replaces (or becomes) DRAGOMAN_MODELS_DIR/<name> with
// renames only, so the server never sees half a model.
import { rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

export async function installFolder(ready: string, target: string, replace: boolean): Promise<void> {
  if (!(await pathExists(target))) {
    await rename(ready, target);
    return;
  }
  if (!replace) throw new Error(`${target} already exists: remove it first or pass --force to replace it`);
  const old = join(dirname(target), `.old-${basename(target)}-${process.pid}-${Date.now()}`);
  await rename(target, old);
  try {
    await rename(ready, target);
  } catch (e) {
    await rename(old, target);
    throw e;
  }
  await rm(old, { recursive: true, force: true });
}
