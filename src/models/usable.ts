// Would the server load this folder? The engine's own reading of it (files, JSON, family, languages, the chosen .onnx
// files' structure), then the engine's load check (its tokenizer, each graph's inputs and outputs, both precisions:
// src/engine/load-check.ts), then the structure of any other .onnx file it carries — so `pack` does not carry and
// `import` does not install a model that hashes fine but cannot serve (an interrupted copy packed as it was, a
// missing tokenizer, the encoder and decoder swapped, a tokenizer.json that is JSON but no tokenizer).
import { join } from 'node:path';
import { GRAPH_FILES, loadProblem } from '../engine/model/load-check.ts';
import { readModelFolder } from '../engine/model/model-folder.ts';
import { onnxFileProblem } from '../engine/model/onnx-file-check.ts';
import { listModelFiles } from './manifest.ts';

/** Undefined when the folder is usable; else its status and the reason. */
export async function unusableReason(dir: string): Promise<string | undefined> {
  const folder = await readModelFolder(dir, 'int8');
  if (folder.info.status !== 'ok') return `${folder.info.status}: ${folder.info.problem ?? 'no reason given'}`;
  const problem = await loadProblem(dir);
  if (problem) return `corrupt: ${problem}`;
  // The load check read the engine's graphs; any other .onnx file is packed too and must at least be whole.
  const checked = new Set(GRAPH_FILES.map((g) => g.file));
  for (const f of await listModelFiles(dir)) {
    if (!f.endsWith('.onnx') || checked.has(f)) continue;
    const other = await onnxFileProblem(join(dir, f));
    if (other) return `corrupt: ${other}`;
  }
  return undefined;
}
