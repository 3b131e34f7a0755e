// Model folders: names, dragoman.json, precision; a missing or corrupt folder is reported and the others load.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DragomanEngine } from '../../src/engine/index.ts';
import { scanModels } from '../../src/engine/model/registry.ts';
import { CORE_FIXTURES, FIXTURES, engineOver, linkModel, readDev, tempDir, type MarianDevRow } from './helpers.ts';

const JSON_FILES = ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json'];

/** A folder with the fixture's json files and the given onnx files (contents), nothing else. */
/** The smallest file that is structurally an ONNX ModelProto: ir_version 7 and an empty graph (no opset: onnxruntime refuses it). */
const BARE_ONNX = Buffer.from([0x08, 0x07, 0x3a, 0x00]);

function partialModel(path: string, fixture: string, onnx: Record<string, string | Buffer>): void {
  mkdirSync(join(path, 'onnx'), { recursive: true });
  for (const f of JSON_FILES) copyFileSync(join(FIXTURES, fixture, f), join(path, f));
  for (const [f, content] of Object.entries(onnx)) writeFileSync(join(path, 'onnx', f), content);
}

describe('scanModels', () => {
  it('reads family, FLORES languages, precision and size from the fixture folders', async () => {
    const int8 = await scanModels(FIXTURES, 'int8');
    const enDe = int8.find((m) => m.name === 'tiny-marian-en-de')!;
    expect(enDe).toMatchObject({ family: 'marian', sources: ['eng_Latn'], targets: ['deu_Latn'], precision: 'int8', status: 'ok' });
    expect(enDe.sizeBytes).toBeGreaterThan(1_000_000);
    const nllb = int8.find((m) => m.name === 'tiny-nllb')!;
    expect(nllb.family).toBe('nllb');
    expect(nllb.targets.length).toBeGreaterThanOrEqual(195);
    expect(nllb.targets).toContain('sat_Olck'); // NLLB's sat_Beng token is the catalog's Santali
    const fp32 = (await scanModels(FIXTURES, 'fp32')).find((m) => m.name === 'tiny-marian-en-de')!;
    expect(fp32.precision).toBe('fp32');
    expect(fp32.sizeBytes).toBeGreaterThan(enDe.sizeBytes);
  });

  it('takes family and languages from dragoman.json over the folder name', async () => {
    const dir = tempDir();
    try {
      linkModel(join(dir.path, 'my-model'), 'tiny-marian-de-en', { 'dragoman.json': '{"family":"marian","source":"fr","target":"en"}' });
      const [info] = await scanModels(dir.path, 'int8');
      expect(info).toMatchObject({ name: 'my-model', family: 'marian', sources: ['fra_Latn'], targets: ['eng_Latn'], status: 'ok' });
    } finally {
      dir.remove();
    }
  });

  it('uses the fp32 files when a folder has no quantized ones', async () => {
    const dir = tempDir();
    try {
      partialModel(join(dir.path, 'opus-mt-en-de'), 'tiny-marian-en-de', { 'encoder_model.onnx': BARE_ONNX, 'decoder_model_merged.onnx': BARE_ONNX });
      const [info] = await scanModels(dir.path, 'int8');
      expect(info).toMatchObject({ precision: 'fp32', status: 'ok' });
    } finally {
      dir.remove();
    }
  });
});

describe('broken folders beside a good one', () => {
  const dir = tempDir();
  let engine: DragomanEngine;
  beforeAll(async () => {
    linkModel(join(dir.path, 'tiny-marian-en-de'), 'tiny-marian-en-de');
    partialModel(join(dir.path, 'opus-mt-de-en'), 'tiny-marian-de-en', { 'encoder_model.onnx': 'x' }); // no decoder
    mkdirSync(join(dir.path, 'opus-mt-fr-en'));
    writeFileSync(join(dir.path, 'opus-mt-fr-en', 'config.json'), '{"model_type": "marian",'); // truncated json
    partialModel(join(dir.path, 'opus-mt-en-fr'), 'tiny-marian-en-de', {
      'encoder_model.onnx': 'this is not an onnx file',
      'decoder_model_merged.onnx': 'neither is this',
    });
    // An interrupted copy: the real encoder cut short.
    const encoder = readFileSync(join(FIXTURES, 'tiny-marian-en-de', 'onnx/encoder_model.onnx'));
    partialModel(join(dir.path, 'opus-mt-en-cs'), 'tiny-marian-en-de', {
      'encoder_model.onnx': encoder.subarray(0, 5000),
      'decoder_model_merged.onnx': readFileSync(join(FIXTURES, 'tiny-marian-en-de', 'onnx/decoder_model_merged.onnx')),
    });
    // A valid graph of the wrong kind: the decoder copied over the encoder.
    const decoder = readFileSync(join(FIXTURES, 'tiny-marian-en-de', 'onnx/decoder_model_merged.onnx'));
    partialModel(join(dir.path, 'opus-mt-en-it'), 'tiny-marian-en-de', { 'encoder_model.onnx': decoder, 'decoder_model_merged.onnx': decoder });
    // Whole as protobuf, refused by onnxruntime itself.
    partialModel(join(dir.path, 'opus-mt-cs-en'), 'tiny-marian-en-de', { 'encoder_model.onnx': BARE_ONNX, 'decoder_model_merged.onnx': BARE_ONNX });
    engine = await engineOver(dir.path);
  });
  afterAll(async () => {
    await engine.close();
    dir.remove();
  });

  it('reports each problem with its path and reason', () => {
    const byName = Object.fromEntries(engine.models().map((m) => [m.name, m]));
    expect(byName['opus-mt-de-en']).toMatchObject({ status: 'incomplete' });
    expect(byName['opus-mt-de-en']!.problem).toContain(join(dir.path, 'opus-mt-de-en', 'onnx/decoder_model_merged.onnx'));
    expect(byName['opus-mt-fr-en']).toMatchObject({ status: 'corrupt' });
    expect(byName['opus-mt-fr-en']!.problem).toContain(join(dir.path, 'opus-mt-fr-en', 'config.json'));
    expect(byName['opus-mt-fr-en']!.problem).toMatch(/not valid JSON/);
    expect(byName['opus-mt-en-fr']).toMatchObject({ status: 'corrupt' });
    expect(byName['opus-mt-en-fr']!.problem).toBe(`${join(dir.path, 'opus-mt-en-fr', 'onnx/encoder_model.onnx')} is not an ONNX model (protobuf wire type 4 at byte 0)`);
    expect(byName['opus-mt-en-cs']).toMatchObject({ status: 'corrupt' });
    expect(byName['opus-mt-en-cs']!.problem).toMatch(/onnx\/encoder_model\.onnx is truncated .*the file has 5000 bytes/);
    expect(byName['opus-mt-en-cs']!.problem).toContain(join(dir.path, 'opus-mt-en-cs'));
    expect(byName['opus-mt-en-it']).toMatchObject({ status: 'corrupt' });
    expect(byName['opus-mt-en-it']!.problem).toBe(
      `${join(dir.path, 'opus-mt-en-it', 'onnx/encoder_model.onnx')}: not a seq2seq encoder (no input "attention_mask"; its inputs are encoder_attention_mask, input_ids, encoder_hidden_states, past_key_values.0.decoder.key)`,
    );
    expect(byName['opus-mt-cs-en']).toMatchObject({ status: 'corrupt' });
    expect(byName['opus-mt-cs-en']!.problem).toMatch(/encoder_model\.onnx.*onnxruntime cannot load it/);
    expect(byName['tiny-marian-en-de']).toMatchObject({ status: 'ok' });
    expect(byName['tiny-marian-en-de']!.loadMs).toBeGreaterThanOrEqual(0);
  });

  it('still serves the good model, and routes nothing to the broken ones', async () => {
    const dev = readDev<MarianDevRow>('tiny-marian-en-de');
    const r = await engine.translate([dev[0]!.src], 'eng_Latn', 'deu_Latn', { beams: 1 });
    expect(r.translations).toEqual([dev[0]!.greedy]);
    expect(engine.route('eng_Latn', 'fra_Latn')).toBeUndefined();
    expect(engine.route('deu_Latn', 'eng_Latn')).toBeUndefined();
  });
});

describe('int8', () => {
  let engine: DragomanEngine;
  beforeAll(async () => {
    engine = await engineOver(CORE_FIXTURES, { DRAGOMAN_PRECISION: 'int8', DRAGOMAN_BEAM: '1' });
  });
  afterAll(() => engine.close());

  it('loads the quantized files and gives plausible, mostly fp32-equal output', async () => {
    expect(engine.models().find((m) => m.name === 'tiny-marian-en-de')!.precision).toBe('int8');
    const dev = readDev<MarianDevRow>('tiny-marian-en-de').slice(0, 50);
    const r = await engine.translate(dev.map((d) => d.src), 'eng_Latn', 'deu_Latn');
    expect(r.translations.every((t) => t.trim().length > 0)).toBe(true);
    const same = r.translations.filter((t, i) => t === dev[i]!.greedy).length;
    console.log(`int8 greedy equal to fp32 reference: ${same}/50`);
    expect(same).toBeGreaterThanOrEqual(25); // the build measured ~86% over 500; a broken int8 path gives ~0
  });
});
