// `dragoman models list` with a model of each family: its family and how many languages it serves, and a refused
// folder with what it lacks (exit code 1).
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/dispatch.ts';
import { FIXTURES, linkModel, tempDir } from '../engine/helpers.ts';

describe('models list across families', () => {
  const dir = tempDir('dragoman-list-families-');
  afterAll(() => dir.remove());

  it('shows each family and its language count, and why a folder is refused', async () => {
    for (const m of ['opus-mt-tiny-en-mul', 'opus-mt-tiny-mul-en', 'tiny-m2m100', 'tiny-mbart50', 'tiny-marian-en-de']) linkModel(join(dir.path, m), m);
    // an M2M-100 folder whose download stopped before the int8 decoder
    const partial = join(dir.path, 'm2m100-partial');
    mkdirSync(join(partial, 'onnx'), { recursive: true });
    const from = join(FIXTURES, 'tiny-m2m100');
    for (const f of readdirSync(from)) if (f !== 'onnx') symlinkSync(join(from, f), join(partial, f));
    symlinkSync(join(from, 'onnx', 'encoder_model_quantized.onnx'), join(partial, 'onnx', 'encoder_model_quantized.onnx'));

    const out: string[] = [];
    const code = await main(['models', 'list'], { env: { DRAGOMAN_MODELS_DIR: dir.path, DRAGOMAN_PRECISION: 'int8' }, out: (l) => void out.push(l), err: () => {} });
    const row = (name: string) => out.find((l) => l.startsWith(name + ' ')) ?? '';
    expect(code).toBe(1);
    expect(row('opus-mt-tiny-en-mul')).toMatch(/^opus-mt-tiny-en-mul\s+marian\s+en → cs,de,fr\s+int8\s+[\d.]+ [kM]B\s+ok$/);
    expect(row('opus-mt-tiny-mul-en')).toMatch(/^opus-mt-tiny-mul-en\s+marian\s+de,fr → en\s+int8\s+[\d.]+ [kM]B\s+ok$/);
    expect(row('tiny-m2m100')).toMatch(/^tiny-m2m100\s+m2m100\s+9\d languages\s+int8\s+[\d.]+ [kM]B\s+ok$/);
    expect(row('tiny-mbart50')).toMatch(/^tiny-mbart50\s+mbart50\s+5\d languages\s+int8\s+[\d.]+ [kM]B\s+ok$/);
    expect(row('tiny-marian-en-de')).toMatch(/^tiny-marian-en-de\s+marian\s+en → de\s+int8/);
    expect(row('m2m100-partial')).toMatch(/\s+incomplete$/);
    expect(out.join('\n')).toMatch(/m2m100-partial: \S+\/onnx\/encoder_model\.onnx is missing; \S+\/onnx\/decoder_model_merged\.onnx is missing; for int8, \S+\/onnx\/decoder_model_merged_quantized\.onnx is missing/);
  });
});
