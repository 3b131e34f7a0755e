// Reading a model folder's files: a JSON file that must be an object, a file's size, and the problem a folder has
// (incomplete: files missing; corrupt: present but unusable), which readModelFolder turns into the folder's status.
import { readFile, stat } from 'node:fs/promises';

export class FolderProblem extends Error {
  constructor(readonly status: 'incomplete' | 'corrupt', message: string) {
    super(message);
  }
}

export async function readJson(path: string, required: boolean): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      if (required) throw new FolderProblem('incomplete', `${path} is missing`);
      return undefined;
    }
    throw new FolderProblem('corrupt', `${path} cannot be read: ${(err as Error).message}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new FolderProblem('corrupt', `${path} is not valid JSON (${(err as Error).message})`);
  }
}

export async function fileSize(path: string): Promise<number | undefined> {
  try {
    const s = await stat(path);
    return s.isFile() ? s.size : undefined;
  } catch {
    return undefined;
  }
}
