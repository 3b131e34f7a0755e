// Would the server load this folder? The engine's own reading of it (files, JSON, family, languages, the .onnx files'
// structure) plus the structure of every other .onnx file in it, so `pack` does not carry and `import` does not
// install a model that hashes fine but cannot serve (an interrupted copy packed as it was, a missing tokenizer).
import { join } from 'node:path';
import { readModelFolder } from '../engine/model-folder.ts';
import { onnxFileProblem } from '../engine/onnx-file-check.ts';
import { listModelFiles } from './manifest.ts';

/** Undefined when the folder is usable; else its status and the reason. */
export async function unusableReason(dir: string): Promise<string | undefined> {
  const folder = await readModelFolder(dir, 'int8');
  if (folder.info.status !== 'ok') return `${folder.info.status}: ${folder.info.problem ?? 'no reason given'}`;
  // The reader checked the two graphs it chose; the other precision's (also packed) are checked here.
  const checked = new Set([folder.runtime?.encoderPath, folder.runtime?.decoderPath]);
  for (const f of await listModelFiles(dir)) {
    if (!f.endsWith('.onnx') || checked.has(join(dir, f))) continue;
    const problem = await onnxFileProblem(join(dir, f));
    if (problem) return `corrupt: ${problem}`;
  }
  return undefined;
}
