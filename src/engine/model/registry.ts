// The models under DRAGOMAN_MODELS_DIR: one subfolder each. A bad folder is reported, never fatal.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readModelFolder, type ModelFolder } from './model-folder.ts';
import type { ModelInfo, PrecisionSetting } from '../types.ts';

export async function scanFolders(dir: string, precision: PrecisionSetting): Promise<ModelFolder[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const names = entries.filter((e) => e.isDirectory() || e.isSymbolicLink()).map((e) => e.name).filter((n) => !n.startsWith('.')).sort();
  return Promise.all(names.map((n) => readModelFolder(join(dir, n), precision)));
}

/**
 * Every model folder with its status, from file checks only (the CLI's `dragoman models list`, which adds
 * load-check.ts: the tokenizer and the graphs' inputs and outputs). An ONNX file that exists but does not load is
 * found when the engine starts (createEngine reports it the same way).
 */
export async function scanModels(dir: string, precision: PrecisionSetting): Promise<ModelInfo[]> {
  return (await scanFolders(dir, precision)).map((f) => f.info);
}
