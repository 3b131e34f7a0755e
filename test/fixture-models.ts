// The fixture models (test/fixtures/models): the three the model-backed suites were written around (one-pair OPUS-MT
// both ways, NLLB) and a tiny model of each further family. A suite whose expectations are those three's (their
// routes, their language lists, their dev.jsonl outputs) serves a folder of links to just them: with every fixture
// installed, routing gives en>fr to the multi-target OPUS-MT model and de>fr to M2M-100 (docs/models-families.md).
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Every fixture model, each in its own folder. Read or copy files from here; never write into it. */
export const FIXTURE_MODELS_DIR = resolve(import.meta.dirname, 'fixtures/models');

export const CORE_MODELS = ['tiny-marian-de-en', 'tiny-marian-en-de', 'tiny-nllb'] as const;
/** Multi-target and multi-source OPUS-MT, M2M-100, mBART-50. */
export const FAMILY_MODELS = ['opus-mt-tiny-en-mul', 'opus-mt-tiny-mul-en', 'tiny-m2m100', 'tiny-mbart50'] as const;

let core: string | undefined;

/**
 * A models folder holding links to the three core models only: made on first use, once per test process, removed
 * when the process exits. Serve it; copy files from FIXTURE_MODELS_DIR (a copy of a link would write through it).
 */
export function coreModelsDir(): string {
  if (!core) {
    const dir = mkdtempSync(join(tmpdir(), 'dragoman-core-models-'));
    for (const m of CORE_MODELS) symlinkSync(join(FIXTURE_MODELS_DIR, m), join(dir, m));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    core = dir;
  }
  return core;
}

/**
 * One row of a family fixture's reference.jsonl: transformers.js' own greedy pipeline('translation') on the folder's
 * files, fp32 and q8 (made by scripts/fixtures/make_reference.mjs, without Dragoman's engine).
 */
export interface ReferenceRow {
  src: string;
  src_lang: string;
  tgt_lang: string;
  fp32: string;
  q8: string;
}

export function familyReference(folder: string): ReferenceRow[] {
  return readFileSync(join(FIXTURE_MODELS_DIR, folder, 'reference.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ReferenceRow);
}
