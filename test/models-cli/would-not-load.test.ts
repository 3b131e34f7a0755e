// Folders whose every file is whole but which the server would still refuse (the encoder and decoder swapped, a
// tokenizer.json that is JSON but no tokenizer): `models list` says corrupt, `pack` refuses them, `import` refuses an
// archive carrying them (built here with a consistent manifest, as a hand-made or older pack would be), and a normal
// model beside them still lists ok and round-trips. Through the real `dragoman` dispatch, for its exit codes.
import { cp, mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/dispatch.ts';
import { manifestOfFolder } from '../../src/models/manifest.ts';
import { PACK_MANIFEST } from '../../src/models/pack.ts';
import { TarWriter } from '../../src/models/tar.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'models');
const ENCODER = 'onnx/encoder_model_quantized.onnx';
const DECODER = 'onnx/decoder_model_merged_quantized.onnx';

/** The fixture's int8 graphs swapped: both whole ONNX files, neither what its name says. */
const SWAPPED = 'opus-mt-en-de';
/** Only the fp32 graphs swapped: int8 serves, but `pack` carries both precisions. */
const SWAPPED_FP32 = 'opus-mt-en-cs';
/** tokenizer.json is valid JSON, languages come from the name, but it is no tokenizer. */
const NOT_A_TOKENIZER = 'opus-mt-en-fr';
const GOOD = 'opus-mt-de-en';

let root: string;
let models: string;

async function dragoman(args: string[], modelsDir: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['models', ...args], { env: { DRAGOMAN_MODELS_DIR: modelsDir }, out: (l) => void out.push(l), err: (l) => void err.push(l) });
  return { code, out, err: err.join('\n') };
}

async function swap(dir: string, a: string, b: string): Promise<void> {
  await rename(join(dir, a), join(dir, 'swap.tmp'));
  await rename(join(dir, b), join(dir, a));
  await rename(join(dir, 'swap.tmp'), join(dir, b));
}

/** An archive as `pack` writes it (manifest first, sizes and sha256 that match) but without pack's usability check. */
async function handPack(modelsDir: string, name: string, output: string): Promise<void> {
  const manifest = await manifestOfFolder(join(modelsDir, name), name);
  const pack = { format: 'dragoman-pack/1', createdAt: new Date().toISOString(), models: [manifest] };
  await mkdir(join(output, '..'), { recursive: true });
  const tar = await TarWriter.create(output);
  await tar.addBuffer(PACK_MANIFEST, Buffer.from(JSON.stringify(pack)));
  for (const f of manifest.files) await tar.addFile(`${name}/${f.path}`, join(modelsDir, name, f.path), f.size, 0);
  await tar.finish();
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dragoman-would-not-load-'));
  models = join(root, 'models');
  await cp(join(FIXTURES, 'tiny-marian-en-de'), join(models, SWAPPED), { recursive: true });
  await swap(join(models, SWAPPED), ENCODER, DECODER);
  await cp(join(FIXTURES, 'tiny-marian-en-de'), join(models, SWAPPED_FP32), { recursive: true });
  await swap(join(models, SWAPPED_FP32), 'onnx/encoder_model.onnx', 'onnx/decoder_model_merged.onnx');
  await cp(join(FIXTURES, 'tiny-marian-en-de'), join(models, NOT_A_TOKENIZER), { recursive: true });
  await writeFile(join(models, NOT_A_TOKENIZER, 'tokenizer.json'), '{"not":"a tokenizer"}');
  await cp(join(FIXTURES, 'tiny-marian-de-en'), join(models, GOOD), { recursive: true });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Each broken folder: the file the server names (inside the folder) and the start of its message after the path. */
const CASES: Record<string, { file: string; reason: string }> = {
  [SWAPPED]: { file: ENCODER, reason: ': not a seq2seq encoder (no input "attention_mask"; its inputs are encoder_attention_mask, input_ids' },
  [SWAPPED_FP32]: { file: 'onnx/encoder_model.onnx', reason: ': not a seq2seq encoder (no input "attention_mask"' },
  [NOT_A_TOKENIZER]: { file: 'tokenizer.json', reason: ' cannot be used: Tokenizer must contain a "model" property' },
};
const BROKEN = Object.keys(CASES);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('models list', () => {
  it('shows the folders the server would refuse as corrupt, naming the file and the reason; the good one ok', async () => {
    const l = await dragoman(['list'], models);
    expect(l.code).toBe(1);
    const status = Object.fromEntries(l.out.slice(1, 5).map((row) => [row.split(/\s+/)[0], row.split(/\s+/).at(-1)]));
    expect(status).toEqual({ [GOOD]: 'ok', [SWAPPED]: 'corrupt', [SWAPPED_FP32]: 'corrupt', [NOT_A_TOKENIZER]: 'corrupt' });
    for (const [name, c] of Object.entries(CASES)) {
      expect(l.out).toContainEqual(expect.stringContaining(`  ${name}: ${join(models, name, c.file)}${c.reason}`));
    }
  });

  it('says the same in --json', async () => {
    const l = await dragoman(['list', '--json'], models);
    const listed = JSON.parse(l.out[0]!) as { name: string; status: string; problem?: string }[];
    const byName = Object.fromEntries(listed.map((m) => [m.name, m]));
    expect(byName[GOOD]).toMatchObject({ status: 'ok' });
    expect(byName[GOOD]!.problem).toBeUndefined();
    for (const [name, c] of Object.entries(CASES)) {
      expect(byName[name]!.status).toBe('corrupt');
      expect(byName[name]!.problem).toContain(`${join(models, name, c.file)}${c.reason}`);
    }
  });
});

describe('models pack', () => {
  it.each(BROKEN)('refuses %s with a non-zero exit, naming the file, and writes nothing', async (name) => {
    const c = CASES[name]!;
    const tar = join(root, 'out', `${name}.tar`);
    const p = await dragoman(['pack', name, '-o', tar], models);
    expect(p.code).toBe(1);
    expect(p.err).toMatch(new RegExp(`^dragoman: ${name} would not load \\(corrupt: `));
    expect(p.err).toContain(`${join(models, name, c.file)}${c.reason}`);
    await expect(stat(tar)).rejects.toThrow(/ENOENT/);
    await expect(stat(`${tar}.partial`)).rejects.toThrow(/ENOENT/);
  });

  it('packs the good model, which imports and lists ok on another host', async () => {
    const tar = join(root, 'out', 'good.tar');
    expect((await dragoman(['pack', GOOD, '-o', tar], models)).code).toBe(0);
    const other = join(root, 'other-host');
    expect((await dragoman(['import', tar], other)).code).toBe(0);
    const l = await dragoman(['list'], other);
    expect(l.code).toBe(0);
    expect(l.out[1]).toMatch(new RegExp(`^${GOOD}\\s+marian\\s+de → en\\s+int8\\s+[\\d.]+ MB\\s+ok$`));
  });
});

describe('models import', () => {
  it.each(BROKEN)('refuses an intact archive carrying %s and installs nothing', async (name) => {
    const c = CASES[name]!;
    const tar = join(root, 'hand', `${name}.tar`);
    await handPack(models, name, tar);
    const dest = join(root, `import-${name}`);
    await mkdir(dest, { recursive: true });
    const i = await dragoman(['import', tar], dest);
    expect(i.code).toBe(1);
    expect(i.err).toContain(`refused ${tar}: ${name} arrived intact but would not load (corrupt: `);
    // The file as it was in the staging folder, and the server's reason for it.
    expect(i.err).toMatch(new RegExp(`${escape(dest)}/\\.import-[^/]+/${name}/${escape(c.file + c.reason)}`));
    expect(i.err).toMatch(/Nothing was installed\.$/);
    expect(await readdir(dest)).toEqual([]);
  });
});
