// Shared by the engine tests: fixture paths, dev.jsonl readers, temporary model folders, engines over them, and what
// the model-rewrite tests look at (a graph's operators and ends, how far two outputs are apart).
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/env.ts';
import { createEngine, type DragomanEngine } from '../../src/engine/index.ts';
import { FLOAT, GRAPH, NODE, VALUE_INFO_NAME, concat, fields, lenField, modelBytes, modelGraph, nodeField, strings, tensorInfoField } from '../../src/engine/model/onnx-proto.ts';
import { FIXTURE_MODELS_DIR, coreModelsDir } from '../fixture-models.ts';
export { oneModelDir } from '../fixture-models.ts';

/** Every fixture model (files to read or copy; never write into it). */
export const FIXTURES = FIXTURE_MODELS_DIR;
/** The three core models only, to serve (see test/fixture-models.ts). */
export const CORE_FIXTURES = coreModelsDir();

/** A fixture model's folder. */
export function fixturePath(fixture: string): string {
  return join(FIXTURES, fixture);
}

export interface MarianDevRow {
  src: string;
  greedy: string;
  beam4: string;
  src_ids: number[];
  greedy_ids: number[];
  beam4_ids: number[];
}

export interface NllbDevRow {
  src: string;
  src_lang: string;
  tgt_lang: string;
  greedy: string;
}

export function readDev<T>(model: string): T[] {
  return readFileSync(join(FIXTURES, model, 'dev.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
}

/** The first `n` tiny-nllb dev rows of one direction (English to French unless told). */
export function nllbDev(n: number, source = 'eng_Latn', target = 'fra_Latn'): NllbDevRow[] {
  return readDev<NllbDevRow>('tiny-nllb').filter((d) => d.src_lang === source && d.tgt_lang === target).slice(0, n);
}

/** A folder of symlinks to every file of a fixture model (cheap "copy"), plus optional extra files. */
export function linkModel(target: string, fixture: string, extra: Record<string, string> = {}): void {
  mkdirSync(target, { recursive: true });
  const from = fixturePath(fixture);
  // A file given in `extra` is written instead of linked: written through a link it would change the fixture itself.
  for (const f of readdirSync(from)) if (!(f in extra)) symlinkSync(join(from, f), join(target, f));
  for (const [name, content] of Object.entries(extra)) writeFileSync(join(target, name), content);
}

export function tempDir(prefix = 'dragoman-engine-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Runs `check` with a maker of sparse files of a given size in MB (only the size counts: the Loops' size gates). */
export function withSparseFiles(check: (file: (name: string, mb: number) => string) => void): void {
  const dir = tempDir();
  try {
    check((name, mb) => {
      const path = join(dir.path, `${mb}-${name}`);
      const fd = openSync(path, 'w');
      ftruncateSync(fd, mb * 1024 * 1024);
      closeSync(fd);
      return path;
    });
  } finally {
    dir.remove();
  }
}

export async function engineOver(modelsDir: string, env: Record<string, string> = {}): Promise<DragomanEngine> {
  return createEngine(loadConfig({ DRAGOMAN_MODELS_DIR: modelsDir, DRAGOMAN_PRECISION: 'fp32', ...env }));
}

/** The engines a setting's on/off comparison runs: the usual one, and with fixedNewTokens one generating exactly that many. */
export interface SettingEngines {
  engine: DragomanEngine;
  fixed: DragomanEngine | undefined;
  setting: 'on' | 'off';
}

/**
 * For fp32 and int8, each with the graph pass `pass` on and left out (DRAGOMAN_SKIP_PASSES; one worker, no cache, plus `env`): engines over the fixtures,
 * `run` on them, closed after. Results keyed `fp32on`, `fp32off`, `int8on`, `int8off`.
 */
export async function onAndOff<T>(pass: string, env: Record<string, string>, run: (e: SettingEngines) => Promise<T>, fixedNewTokens?: number): Promise<Record<string, T>> {
  const out: Record<string, T> = {};
  for (const precision of ['fp32', 'int8']) for (const setting of ['on', 'off'] as const) {
    const all = { DRAGOMAN_PRECISION: precision, DRAGOMAN_WORKERS: '1', DRAGOMAN_SKIP_PASSES: setting === 'on' ? '' : pass, DRAGOMAN_CACHE_SIZE: '0', ...env };
    const engine = await engineOver(CORE_FIXTURES, all);
    const fixed = fixedNewTokens === undefined ? undefined : await createEngine(loadConfig({ DRAGOMAN_MODELS_DIR: CORE_FIXTURES, ...all }), { fixedNewTokens });
    try {
      out[precision + setting] = await run({ engine, fixed, setting });
    } finally {
      await engine.close();
      await fixed?.close();
    }
  }
  return out;
}

/**
 * The greedy cases both search settings are compared on: Marian en→de and NLLB en→fr (forced first token) with the
 * usual engine, then with `fixed` (EOS banned until its length, forced at it for Marian).
 */
export async function greedyCases({ engine, fixed }: SettingEngines, marian: MarianDevRow[], nllb: NllbDevRow[]): Promise<string[][]> {
  return [
    (await engine.translate(marian.map((d) => d.src), 'eng_Latn', 'deu_Latn')).translations,
    (await engine.translate(nllb.map((d) => d.src), 'eng_Latn', 'fra_Latn')).translations,
    (await fixed!.translate(marian.slice(0, 30).map((d) => d.src), 'eng_Latn', 'deu_Latn')).translations,
    (await fixed!.translate(nllb.map((d) => d.src), 'eng_Latn', 'fra_Latn')).translations,
  ];
}

export function rate(ok: number, n: number): string {
  return `${ok}/${n} = ${((100 * ok) / n).toFixed(1)}%`;
}

/** A model's operator types (in node order) and its input and output names. */
export function graphOf(model: Uint8Array) {
  const graph = modelGraph(model)!.fields;
  return {
    ops: graph.filter((f) => f.no === GRAPH.node).map((f) => strings(fields(f.value), NODE.opType)[0]),
    inputs: graph.filter((f) => f.no === GRAPH.input).map((f) => strings(fields(f.value), VALUE_INFO_NAME)[0]),
    outputs: graph.filter((f) => f.no === GRAPH.output).map((f) => strings(fields(f.value), VALUE_INFO_NAME)[0]),
  };
}

/** Largest absolute difference between two float outputs of the same shape. */
/** A model whose `logits` output [rows, 1, vocab] is its input `x`: what a pass adds after the logits sees known values. */
export function identityLogitsModel(): Uint8Array {
  return modelBytes(concat([
    nodeField('Identity', ['x'], ['logits'], 'id'),
    lenField(GRAPH.name, 'identity'),
    tensorInfoField(GRAPH.input, 'x', FLOAT, ['rows', 1, 'vocab']),
    tensorInfoField(GRAPH.output, 'logits', FLOAT, ['rows', 1, 'vocab']),
  ]), 14);
}

export function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let j = 0; j < a.length; j++) d = Math.max(d, Math.abs(a[j]! - b[j]!));
  return d;
}
