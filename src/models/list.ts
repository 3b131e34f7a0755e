// `dragoman models list`: the engine's own reading of each folder (family, languages, status from the files it
// needs), what the manifest says (a file missing or of the wrong size downgrades the status), then the engine's load
// check (tokenizer, each graph's inputs and outputs: src/engine/load-check.ts, the check `pack` and `import` use), so
// `ok` means the server would load it. Sizes only, no hashing, so it stays fast on multi-GB models; `verify` hashes.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Precision } from '../config/env.ts';
import { loadProblem } from '../engine/model/load-check.ts';
import { scanModels } from '../engine/model/registry.ts';
import type { ModelInfo } from '../engine/types.ts';
import { checkAgainstManifest, listModelFiles, readManifest } from './manifest.ts';

export interface ListedModel extends ModelInfo {
  /** Every file in the folder (the engine's sizeBytes counts only the files it would load). */
  diskBytes: number;
  manifest: 'ok' | 'mismatch' | 'none' | 'unreadable';
  /** `Xenova/opus-mt-en-de@<commit>` when the model was pulled. */
  origin?: string;
}

async function diskBytes(dir: string): Promise<number> {
  let total = 0;
  for (const f of await listModelFiles(dir)) total += (await stat(join(dir, f))).size;
  return total;
}

export async function listModels(modelsDir: string, precision: Precision): Promise<ListedModel[]> {
  const out: ListedModel[] = [];
  for (const info of await scanModels(modelsDir, precision)) {
    const listed: ListedModel = { ...info, diskBytes: await diskBytes(info.path), manifest: 'none' };
    try {
      const manifest = await readManifest(info.path);
      if (manifest) {
        const src = manifest.source;
        if (src) listed.origin = `${src.repo}@${(src.commit ?? src.revision).slice(0, 12)}`;
        const problems = await checkAgainstManifest(info.path, manifest, false);
        listed.manifest = problems.length ? 'mismatch' : 'ok';
        if (problems.length && listed.status === 'ok') {
          listed.status = problems.some((p) => p.problem === 'missing') ? 'incomplete' : 'corrupt';
          listed.problem = problems.map((p) => `${join(info.path, p.path)}: ${p.detail}`).join('; ');
        }
      }
    } catch (e) {
      listed.manifest = 'unreadable';
      if (listed.status === 'ok') {
        listed.status = 'corrupt';
        listed.problem = (e as Error).message;
      }
    }
    // Whole files that still would not load (the encoder and decoder swapped, JSON that is no tokenizer).
    const problem = listed.status === 'ok' ? await loadProblem(info.path) : undefined;
    if (problem) {
      listed.status = 'corrupt';
      listed.problem = problem;
    }
    out.push(listed);
  }
  return out;
}
