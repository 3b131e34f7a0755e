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
/**
 * Decoder-only translators (llama, qwen3, gemma3_text) in the optimum / transformers.js layout, and the llama one
 * again in the onnxruntime-genai layout (int4 MatMulNBits, GroupQueryAttention). Their prompt is in dragoman.json;
 * scripts/fixtures/README.md says how they were made.
 */
export const LLM_MODELS = ['tiny-gemma3-mt', 'tiny-llama-mt', 'tiny-qwen3-mt'] as const;
export const LLM_GENAI_MODELS = ['tiny-llama-mt-genai'] as const;
/** Every fixture folder that holds an encoder-decoder translation model. */
export const isSeq2SeqFixture = (name: string): boolean =>
  !(LLM_MODELS as readonly string[]).includes(name) && !(LLM_GENAI_MODELS as readonly string[]).includes(name);

/**
 * The prepared decoder graphs of every test server and command, shared by the whole run (and the next): entries are
 * keyed by the files' content and written whole (src/engine/runtime/prepare.ts), so servers on fresh data folders
 * read the tiny models' graphs instead of preparing them again, each in a thread of its own.
 */
export const TEST_GRAPH_CACHE = join(tmpdir(), `dragoman-test-graphs-${process.getuid?.() ?? 'user'}`);

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

const oneModel = new Map<string, string>();

/**
 * A models folder holding a link to one fixture model only, made on first use, once per test process, removed when
 * the process exits. For a suite that translates with that model alone: each engine worker (and each server
 * process) then loads one model, not three.
 */
export function oneModelDir(fixture: (typeof CORE_MODELS)[number]): string {
  let dir = oneModel.get(fixture);
  if (!dir) {
    const made = mkdtempSync(join(tmpdir(), `dragoman-${fixture}-`));
    symlinkSync(join(FIXTURE_MODELS_DIR, fixture), join(made, fixture));
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
    oneModel.set(fixture, made);
    dir = made;
  }
  return dir;
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

/** One row of a decoder-only fixture's dev.jsonl: a held-out Multi30k caption and the PyTorch greedy answer. */
export interface LlmDevRow {
  src: string;
  src_lang: string;
  tgt_lang: string;
  /** dragoman.json's prompt filled with the pair's language names and the caption (the one user message) */
  prompt: string;
  output: string;
  /** the answer's token ids, its end of turn last */
  output_ids: number[];
  ended: boolean;
}

/**
 * One row of a decoder-only fixture's reference.jsonl: the greedy answer with each precision, by transformers.js
 * (fp32, q8) or, in the onnxruntime-genai layout, by onnxruntime-node on the graph (fp32 weights, int4).
 */
export interface LlmReferenceRow {
  src: string;
  src_lang: string;
  tgt_lang: string;
  fp32: string;
  q8?: string;
  int4?: string;
}

const jsonl = <T>(folder: string, file: string): T[] =>
  readFileSync(join(FIXTURE_MODELS_DIR, folder, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
export const llmDev = (folder: string): LlmDevRow[] => jsonl<LlmDevRow>(folder, 'dev.jsonl');
export const llmReference = (folder: string): LlmReferenceRow[] => jsonl<LlmReferenceRow>(folder, 'reference.jsonl');
