// `dragoman models pull` of decoder-only translators (Optimum and onnxruntime-genai layouts) against a local imitation
// of the hub serving the tiny LLM fixtures under the names of the real repositories.
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLanguage } from '../../src/languages/catalog.ts';
import { readManifest } from '../../src/models/manifest.ts';
import { KNOWN_TRANSLATORS, knownTranslator } from '../../src/models/known-translators.ts';
import { readTranslatorPrompt, userContent } from '../../src/engine/model/translator-prompt.ts';
import { pullModel } from '../../src/models/pull.ts';
import { resolveRepo } from '../../src/models/presets.ts';
import { startFakeHub, type FakeHub } from './fake-hub.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'models');
const GEMMA_TEMPLATE_WITH_CODES =
  "{{ bos_token }}{%- for message in messages %}{%- set c = message['content'][0] %}" +
  "{{ '<start_of_turn>user\\n' + c['source_lang_code'] + ' ' + c['target_lang_code'] + ' ' + c['text'] + '<end_of_turn>\\n' }}" +
  "{%- endfor %}{%- if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{%- endif %}";

let work: string;
let hub: FakeHub;
let modelsDir: string;
let log: string[];

/** A fixture as a repository would publish it: without the dragoman.json Dragoman's own fixtures carry. */
async function published(fixture: string, change?: (dir: string) => Promise<void>): Promise<string> {
  const dir = join(work, 'repos', `${fixture}-${Math.random().toString(36).slice(2)}`);
  await cp(join(FIXTURES, fixture), dir, { recursive: true });
  await rm(join(dir, 'dragoman.json'));
  await change?.(dir);
  return dir;
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'dragoman-pull-llm-'));
  const withCodes = async (dir: string) => {
    const config = JSON.parse(await readFile(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify({ ...config, chat_template: GEMMA_TEMPLATE_WITH_CODES }));
  };
  hub = await startFakeHub({
    repos: {
      'onnx-community/Qwen3-0.6B-ONNX': await published('tiny-qwen3-mt'),
      'ModaLeap/hy-mt2-1.8b-onnx': await published('tiny-llama-mt-genai'),
      'onnx-community/translategemma-text-4b-it-ONNX': await published('tiny-gemma3-mt', withCodes),
      'someone/translategemma-4b-it-plain-template': await published('tiny-gemma3-mt'),
      'someone/tiny-llama': await published('tiny-llama-mt'),
      // A repository made for Dragoman ships its own declaration, which is kept.
      'someone/llama-3.2-1b-instruct-mt': join(FIXTURES, 'tiny-llama-mt'),
    },
  });
});
afterAll(async () => {
  await hub.close();
  await rm(work, { recursive: true, force: true });
});

async function pull(spec: string, extra: Partial<Parameters<typeof pullModel>[0]> = {}) {
  modelsDir = await mkdtemp(join(work, 'models-'));
  log = [];
  return pullModel({
    modelsDir,
    spec,
    hub: { endpoint: hub.url },
    log: { write: (t: string) => void log.push(t), isTTY: false },
    retryDelayMs: 1,
    ...extra,
  });
}

async function filesOf(dir: string): Promise<string[]> {
  return ((await readdir(dir, { recursive: true })) as string[]).filter((f) => f.includes('.')).sort();
}

const declarationOf = async (dir: string) => JSON.parse(await readFile(join(dir, 'dragoman.json'), 'utf8')) as Record<string, unknown>;

describe('models pull of an LLM translator', () => {
  it('takes the int8 graph of an Optimum decoder-only repository and writes the known prompt as dragoman.json', async () => {
    const { dir, manifest } = await pull('onnx-community/Qwen3-0.6B-ONNX');
    expect(await filesOf(dir)).toEqual([
      'README.md',
      'config.json',
      'dragoman-manifest.json',
      'dragoman.json',
      'generation_config.json',
      'onnx/model_quantized.onnx',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    expect(await declarationOf(dir)).toEqual(knownTranslator('onnx-community/Qwen3-0.6B-ONNX')!.declaration(undefined));
    expect(await declarationOf(dir)).toMatchObject({ chatTemplateOptions: { enable_thinking: false } });
    // The written declaration is part of the model's proof of integrity, like the downloaded files.
    expect(manifest.files.map((f) => f.path)).toContain('dragoman.json');
    expect((await readManifest(dir))?.files.map((f) => f.path)).toContain('dragoman.json');
    expect(log.join('')).toMatch(/Wrote dragoman\.json: Qwen3/);
  });

  it('fp32 takes onnx/model.onnx, and int4 falls back to the int8 graph when the repository has no q4 file', async () => {
    const fp32 = await pull('onnx-community/Qwen3-0.6B-ONNX', { precision: 'fp32' });
    expect((await filesOf(fp32.dir)).filter((f) => f.endsWith('.onnx'))).toEqual(['onnx/model.onnx']);
    const int4 = await pull('onnx-community/Qwen3-0.6B-ONNX', { precision: 'int4' });
    expect((await filesOf(int4.dir)).filter((f) => f.endsWith('.onnx'))).toEqual(['onnx/model_quantized.onnx']);
    expect(int4.manifest.precision).toBe('int4');
  });

  it('takes an onnxruntime-genai repository whole (genai_config.json, model.onnx) and writes the Hy-MT2 prompts', async () => {
    const { dir } = await pull('ModaLeap/hy-mt2-1.8b-onnx');
    const files = await filesOf(dir);
    expect(files).toEqual(expect.arrayContaining(['genai_config.json', 'model.onnx', 'tokenizer.json', 'tokenizer_config.json', 'dragoman.json']));
    expect(files).not.toContain('config.json');
    const declaration = await declarationOf(dir);
    expect(declaration.prompt).toBe(
      'Translate the following text into {target_name}. Note that you should only output the translated result without any additional explanation:\n\n{text}',
    );
    // The card's rule: into and out of Chinese the Chinese prompt, which names languages in Chinese.
    expect(declaration.prompts).toEqual([
      expect.objectContaining({ either: ['zh', 'zh-Hant', 'yue'], prompt: expect.stringContaining('将以下文本翻译为{target_name}') }),
    ]);
    expect((declaration.prompts as { languages: Record<string, string> }[])[0]!.languages.en).toBe('英语');
    expect(Object.keys(declaration.languages as object)).toHaveLength(38);
  });

  it('TranslateGemma: structured content when the repository ships its own chat template, the built message otherwise', async () => {
    const own = await declarationOf((await pull('onnx-community/translategemma-text-4b-it-ONNX')).dir);
    expect(own).toMatchObject({
      content: { type: 'text', source_lang_code: '{source_code}', target_lang_code: '{target_code}', text: '{text}' },
    });
    expect(own.prompt).toBeUndefined();
    const plain = await declarationOf((await pull('someone/translategemma-4b-it-plain-template')).dir);
    expect(plain.content).toBeUndefined();
    expect(plain.prompt).toMatch(/^You are a professional \{source_name\} \(\{source_code\}\) to \{target_name\} \(\{target_code\}\) translator\./);
    expect(plain.prompt).toMatch(/into \{target_name\}:\n\n\n\{text\}$/);
  });

  it('keeps the dragoman.json a repository ships', async () => {
    const { dir } = await pull('someone/llama-3.2-1b-instruct-mt');
    expect(await readFile(join(dir, 'dragoman.json'), 'utf8')).toBe(await readFile(join(FIXTURES, 'tiny-llama-mt', 'dragoman.json'), 'utf8'));
  });

  it('installs an unknown decoder-only model without a declaration and says what the server needs', async () => {
    const { dir } = await pull('someone/tiny-llama');
    expect(await filesOf(dir)).not.toContain('dragoman.json');
    expect(log.join('')).toMatch(/someone\/tiny-llama is a decoder-only model Dragoman has no prompt for: write its dragoman\.json/);
  });
});

/** The `dragoman.json` blocks docs/models.md marks with `<!-- dragoman.json: NAME -->`. */
async function documentedEntries(): Promise<Map<string, Record<string, unknown>>> {
  const page = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'models.md'), 'utf8');
  const entries = new Map<string, Record<string, unknown>>();
  for (const m of page.matchAll(/<!-- dragoman\.json: (.+?) -->\n```json\n([\s\S]*?)\n```/g)) entries.set(m[1]!, JSON.parse(m[2]!));
  return entries;
}

describe('known translators', () => {
  it('are the entries docs/models.md shows', async () => {
    const docs = await documentedEntries();
    const entry = (repo: string, template?: string) => knownTranslator(repo)!.declaration(template);
    expect([...docs.keys()]).toEqual(['Hy-MT2', 'TranslateGemma, own chat template', 'TranslateGemma, plain chat template', 'Gemma 3']);
    expect(docs.get('Hy-MT2')).toEqual(entry('x/hy-mt2-1.8b'));
    expect(docs.get('TranslateGemma, own chat template')).toEqual(entry('x/translategemma-4b-it', GEMMA_TEMPLATE_WITH_CODES));
    expect(docs.get('TranslateGemma, plain chat template')!.prompt).toBe(entry('x/translategemma-4b-it').prompt);
    expect(docs.get('Gemma 3')).toEqual(entry('onnx-community/gemma-3-1b-it-ONNX'));
    // The page shows the other Hunyuan prompts as the one line that differs.
    const page = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'models.md'), 'utf8');
    expect(page).toContain(`"prompt": ${JSON.stringify(entry('x/HY-MT1.5-1.8B').prompt)}`);
    expect(page).toContain(`"prompt": ${JSON.stringify(entry('x/Hunyuan-MT-7B').prompts![0]!.prompt)}`);
  });

  it('declare only languages the catalog knows, each once, and prompts that hold the text', () => {
    for (const known of KNOWN_TRANSLATORS) {
      for (const template of [undefined, GEMMA_TEMPLATE_WITH_CODES]) {
        const d = known.declaration(template);
        const codes = Object.keys(d.languages);
        const catalog = codes.map((c) => resolveLanguage(c)?.code);
        expect(catalog.every(Boolean), `${known.name}: ${codes.filter((_, i) => !catalog[i]).join(', ')}`).toBe(true);
        expect(new Set(catalog).size, known.name).toBe(codes.length);
        const prompts = [d.prompt, ...(d.prompts ?? []).map((p) => p.prompt), d.content?.text].filter((p) => p !== undefined);
        expect(prompts.length, known.name).toBeGreaterThan(0);
        for (const p of prompts) expect(p, known.name).toContain('{text}');
        for (const rule of d.prompts ?? []) expect(Object.keys(rule.languages ?? d.languages).sort()).toEqual([...codes].sort());
      }
    }
  });

  it('are read by the server as they are written (the engine\'s own dragoman.json reader)', () => {
    for (const known of KNOWN_TRANSLATORS) {
      for (const template of [undefined, GEMMA_TEMPLATE_WITH_CODES]) {
        const { prompt } = readTranslatorPrompt(`${known.name}/dragoman.json`, known.declaration(template) as unknown as Record<string, unknown>);
        const [source, target] = Object.keys(prompt.names);
        const asked = userContent(prompt, source!, target!, 'A dog runs.');
        expect(JSON.stringify(asked), known.name).toContain('A dog runs.');
      }
    }
  });

  it('are recognised by the names community exports keep, and not for the ensemble model', () => {
    expect(knownTranslator('Menterium/translategemma-4b-it-onnx-int4-cpu')?.name).toMatch(/TranslateGemma/);
    expect(knownTranslator('onnx-community/gemma-3-1b-it-ONNX')?.name).toMatch(/Gemma 3/);
    expect(knownTranslator('onnx-community/Llama-3.2-1B-Instruct')?.name).toMatch(/Llama 3\.2/);
    expect(knownTranslator('someone/HY-MT1.5-1.8B-onnx')?.name).toMatch(/HY-MT1\.5/);
    expect(knownTranslator('someone/Hunyuan-MT-7B-onnx')?.name).toMatch(/Hunyuan-MT-7B/);
    expect(knownTranslator('tencent/Hunyuan-MT-Chimera-7B')).toBeUndefined();
    expect(knownTranslator('Xenova/opus-mt-en-de')).toBeUndefined();
  });

  it('every LLM preset names a repository whose prompt is known', () => {
    for (const preset of ['hy-mt2', 'translategemma', 'qwen3', 'gemma3', 'llama3.2']) {
      const { repo } = resolveRepo(preset);
      expect(knownTranslator(repo), `${preset} → ${repo}`).toBeDefined();
    }
    expect(resolveRepo('hy-mt2')).toEqual({ repo: 'ModaLeap/hy-mt2-1.8b-onnx', name: 'hy-mt2-1.8b-onnx' });
  });
});
