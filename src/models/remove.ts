// `dragoman models remove NAME`: the folder leaves DRAGOMAN_MODELS_DIR in one rename (to a hidden name, which a
// server watching the folder ignores) before it is deleted, so a running server never sees half a model.
import { lstat, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isSafeModelName } from './safe-names.ts';

export async function removeModel(modelsDir: string, name: string): Promise<void> {
  if (!isSafeModelName(name)) throw new Error(`"${name}" is not a model folder name`);
  const folder = join(modelsDir, name);
  const st = await lstat(folder).catch(() => undefined);
  if (!st) throw new Error(`${folder} does not exist: "dragoman models list" shows the installed models`);
  if (!st.isDirectory() && !st.isSymbolicLink()) throw new Error(`${folder} is not a model folder`);
  const leaving = join(modelsDir, `.removing-${name}-${process.pid}-${Date.now()}`);
  await rename(folder, leaving);
  // A link is removed, never what it points to.
  await rm(leaving, { recursive: !st.isSymbolicLink(), force: true });
}
