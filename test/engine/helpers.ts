// Shared by the engine tests: fixture paths, dev.jsonl readers, temporary model folders, engines over them.
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../src/config/env.ts';
import { createEngine, type DragomanEngine } from '../../src/engine/index.ts';

export const FIXTURES = resolve(import.meta.dirname, '../fixtures/models');

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

/** A folder of symlinks to every file of a fixture model (cheap "copy"), plus optional extra files. */
export function linkModel(target: string, fixture: string, extra: Record<string, string> = {}): void {
  mkdirSync(target, { recursive: true });
  for (const f of readdirSync(join(FIXTURES, fixture))) symlinkSync(join(FIXTURES, fixture, f), join(target, f));
  for (const [name, content] of Object.entries(extra)) writeFileSync(join(target, name), content);
}

export function tempDir(prefix = 'dragoman-engine-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export async function engineOver(modelsDir: string, env: Record<string, string> = {}): Promise<DragomanEngine> {
  return createEngine(loadConfig({ DRAGOMAN_MODELS_DIR: modelsDir, DRAGOMAN_PRECISION: 'fp32', ...env }));
}

export function rate(ok: number, n: number): string {
  return `${ok}/${n} = ${((100 * ok) / n).toFixed(1)}%`;
}
