// Every model family over HTTP: which installed model serves a pair (one-pair OPUS-MT, then multi-target or
// multi-source OPUS-MT, then the many-to-many families, then a pivot) as X-Dragoman-Model names it, /v1/languages with each fixture, a
// multi-target model writing two languages, the shared features (detection, HTML, long input) with M2M-100 and
// mBART-50, and a refused folder saying what it lacks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scanModels } from '../../src/engine/model/registry.ts';
import { FIXTURES, linkModel, tempDir } from '../engine/helpers.ts';
import { familyReference as reference, isSeq2SeqFixture } from '../fixture-models.ts';
import { startTestApp, type TestApp } from './helpers.ts';

// every encoder-decoder fixture model (the folder a user would have after pulling one of each)
const ALL = readdirSync(FIXTURES).filter(isSeq2SeqFixture);

async function appWith(models: string[]): Promise<{ t: TestApp; key: string; remove: () => void }> {
  const dir = tempDir('dragoman-families-');
  for (const m of models) linkModel(join(dir.path, m), m);
  const t = await startTestApp({ DRAGOMAN_MODELS_DIR: dir.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_BEAM: '1' });
  return { t, key: (await t.key()).secret, remove: dir.remove };
}

describe('routing across families', () => {
  let app: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    app = await appWith(ALL);
  });
  afterAll(async () => {
    await app.t.close();
    app.remove();
  });
  const translate = (q: string | string[], source: string | undefined, target: string, extra: Record<string, unknown> = {}) =>
    app.t.call('POST', '/v1/translate', { key: app.key, body: { q, target, ...(source ? { source } : {}), ...extra } });

  it('prefers a one-pair model, then multi-target or multi-source OPUS-MT, then the many-to-many models (alphabetically)', async () => {
    expect(ALL).toHaveLength(7);
    const cases: [string, string, string][] = [
      ['en', 'de', 'tiny-marian-en-de'], // one pair, though four other models serve it
      ['de', 'en', 'tiny-marian-de-en'], // one pair before the multi-source model, M2M-100, mBART-50 and NLLB
      ['en', 'fr', 'opus-mt-tiny-en-mul'], // multi-target before M2M-100, mBART-50 and NLLB
      ['en', 'cs', 'opus-mt-tiny-en-mul'],
      ['fr', 'en', 'opus-mt-tiny-mul-en'], // multi-source before M2M-100, mBART-50 and NLLB
      ['cs', 'en', 'tiny-m2m100'], // a source the multi-source model does not list
      ['de', 'fr', 'tiny-m2m100'], // many-to-many: m2m100 < mbart50 < nllb
      ['fr', 'ja', 'tiny-m2m100'],
    ];
    for (const [source, target, model] of cases) {
      const r = await translate('A man is walking.', source, target);
      expect(r.status, `${source}>${target}`).toBe(200);
      expect(r.headers.get('x-dragoman-model'), `${source}>${target}`).toBe(model);
    }
  });

  it('detects the source and routes it the same way', async () => {
    const r = await translate(['Ein Mann fährt Fahrrad auf der Straße.', 'Un homme fait du vélo dans la rue.'], undefined, 'en');
    expect(r.status).toBe(200);
    expect(r.body.data.translations.map((x: { detectedSourceLanguage: string }) => x.detectedSourceLanguage)).toEqual(['de', 'fr']);
    expect(r.headers.get('x-dragoman-model')).toBe('tiny-marian-de-en, opus-mt-tiny-mul-en');
  });
});

describe('a many-to-many model before a pivot', () => {
  let app: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    app = await appWith(['tiny-marian-de-en', 'opus-mt-tiny-en-mul', 'tiny-mbart50']);
  });
  afterAll(async () => {
    await app.t.close();
    app.remove();
  });

  it('mBART-50 serves German into French and Czech itself, though OPUS-MT models could pivot through English', async () => {
    const deFr = await app.t.call('POST', '/v1/translate', { key: app.key, body: { q: 'Ein Hund läuft.', source: 'de', target: 'fr' } });
    expect(deFr.headers.get('x-dragoman-model')).toBe('tiny-mbart50');
    const deCs = await app.t.call('POST', '/v1/translate', { key: app.key, body: { q: 'Ein Hund läuft.', source: 'de', target: 'cs' } });
    expect(deCs.headers.get('x-dragoman-model')).toBe('tiny-mbart50');
  });
});

describe('a pivot through English between two OPUS-MT models', () => {
  let app: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    app = await appWith(['tiny-marian-de-en', 'opus-mt-tiny-en-mul']);
  });
  afterAll(async () => {
    await app.t.close();
    app.remove();
  });

  it('de>fr runs de>en then the multi-target model into French', async () => {
    const r = await app.t.call('POST', '/v1/translate', { key: app.key, body: { q: 'Ein Hund läuft im Park.', source: 'de', target: 'fr' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-dragoman-model')).toBe('tiny-marian-de-en>opus-mt-tiny-en-mul');
    expect(r.body.data.translations[0].translatedText.length).toBeGreaterThan(0);
  });
});

describe('/v1/languages with each fixture alone', () => {
  const expected: [string, (codes: string[]) => void][] = [
    ['opus-mt-tiny-en-mul', (codes) => expect(codes.sort()).toEqual(['cs', 'de', 'en', 'fr'])],
    ['opus-mt-tiny-mul-en', (codes) => expect(codes.sort()).toEqual(['de', 'en', 'fr'])], // the sources dragoman.json lists
    ['tiny-m2m100', (codes) => {
      expect(codes.length).toBeGreaterThanOrEqual(95); // 100 __xx__ tokens, nearly all catalog languages
      for (const c of ['de', 'en', 'fr', 'cs', 'ja', 'sw', 'zh-CN', 'ast']) expect(codes).toContain(c);
    }],
    ['tiny-mbart50', (codes) => {
      expect(codes.length).toBeGreaterThanOrEqual(50); // 52 xx_YY codes
      for (const c of ['de', 'en', 'fr', 'cs', 'ja', 'zh-CN', 'gl', 'sl']) expect(codes).toContain(c);
      expect(codes).not.toContain('ast'); // nothing beyond its tokens
    }],
  ];
  for (const [folder, check] of expected) {
    it(`${folder}: the languages its tokens name, localized`, async () => {
      const app = await appWith([folder]);
      try {
        const r = await app.t.call('GET', '/v1/languages', { key: app.key });
        expect(r.status).toBe(200);
        const codes: string[] = r.body.data.languages.map((l: { language: string }) => l.language);
        console.log(`/v1/languages with ${folder}: ${codes.length} languages`);
        check(codes);
        const de = await app.t.call('GET', '/v1/languages?target=de', { key: app.key });
        const names = new Map<string, string>(de.body.data.languages.map((l: { language: string; name: string }) => [l.language, l.name]));
        expect(names.get('en')).toBe('Englisch');
        expect(names.get('fr')).toBe('Französisch');
      } finally {
        await app.t.close();
        app.remove();
      }
    });
  }
});

describe('a multi-target model serving two targets', () => {
  let app: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    app = await appWith(['opus-mt-tiny-en-mul']);
  });
  afterAll(async () => {
    await app.t.close();
    app.remove();
  });

  it('writes German for de and French for fr from the same sources, as transformers.js does with >>deu<< / >>fra<<', async () => {
    const rows = reference('opus-mt-tiny-en-mul');
    const sources = [...new Set(rows.map((r) => r.src))].slice(0, 12);
    const want = (t: string) => sources.map((src) => rows.find((r) => r.src === src && r.tgt_lang === t)!.fp32);
    const got: Record<string, string[]> = {};
    for (const target of ['de', 'fr']) {
      const r = await app.t.call('POST', '/v1/translate', { key: app.key, body: { q: sources, source: 'en', target } });
      expect(r.headers.get('x-dragoman-model')).toBe('opus-mt-tiny-en-mul');
      got[target] = r.body.data.translations.map((x: { translatedText: string }) => x.translatedText);
      expect(got[target]).toEqual(want(target));
    }
    // the two targets really are two languages: most sentences come out differently
    const differ = sources.filter((_, i) => got.de![i] !== got.fr![i]).length;
    expect(differ).toBeGreaterThanOrEqual(10);
  });
});

describe('the shared features with M2M-100 and mBART-50', () => {
  let app: Awaited<ReturnType<typeof appWith>>;
  beforeAll(async () => {
    app = await appWith(['tiny-m2m100']);
  });
  afterAll(async () => {
    await app.t.close();
    app.remove();
  });

  it('HTML keeps its tags; a long input is split to fit the position table; the result equals the sentence alone', async () => {
    const rows = reference('tiny-m2m100').filter((r) => r.src_lang === 'en');
    const html = await app.t.call('POST', '/v1/translate', { key: app.key, body: { q: `<p><b>${rows[0]!.src}</b></p>`, source: 'en', target: 'de', format: 'html' } });
    expect(html.status).toBe(200);
    expect(html.body.data.translations[0].translatedText).toMatch(/^<p><b>.+<\/b><\/p>$/s);
    // 40 sentences without punctuation between them: one segment far beyond 128 tokens
    const long = Array.from({ length: 40 }, (_, i) => rows[i % rows.length]!.src.replace(/\.$/, '')).join(' and ');
    const r = await app.t.call('POST', '/v1/translate', { key: app.key, body: { q: long, source: 'en', target: 'de' } });
    expect(r.status).toBe(200);
    expect(r.body.data.translations[0].translatedText.length).toBeGreaterThan(200);
  });
});

describe('a refused folder says what it lacks', () => {
  const dir = tempDir('dragoman-refused-');
  afterAll(() => dir.remove());

  it('names the missing decoder, the missing language tokens and an unknown model_type', async () => {
    const from = join(FIXTURES, 'tiny-m2m100');
    const noDecoder = join(dir.path, 'tiny-m2m100-no-decoder');
    mkdirSync(join(noDecoder, 'onnx'), { recursive: true });
    for (const f of readdirSync(from)) if (f !== 'onnx') symlinkSync(join(from, f), join(noDecoder, f));
    symlinkSync(join(from, 'onnx', 'encoder_model.onnx'), join(noDecoder, 'onnx', 'encoder_model.onnx'));

    const noTokens = join(dir.path, 'tiny-mbart50-no-codes');
    linkModel(noTokens, 'tiny-mbart50');
    const tok = JSON.parse(readFileSync(join(FIXTURES, 'tiny-mbart50', 'tokenizer.json'), 'utf8'));
    tok.added_tokens = tok.added_tokens.filter((t: { content: string }) => !/^[a-z]{2}_[A-Z]{2}$/.test(t.content));
    const tokPath = join(noTokens, 'tokenizer.json');
    rmSync(tokPath);
    writeFileSync(tokPath, JSON.stringify(tok));

    const unknown = join(dir.path, 'some-t5');
    linkModel(unknown, 'tiny-m2m100');
    rmSync(join(unknown, 'config.json'));
    writeFileSync(join(unknown, 'config.json'), JSON.stringify({ model_type: 't5', d_model: 64 }));

    const models = await scanModels(dir.path, 'fp32');
    const byName = new Map(models.map((m) => [m.name, m]));
    expect(byName.get('tiny-m2m100-no-decoder')).toMatchObject({ status: 'incomplete', family: 'm2m100' });
    expect(byName.get('tiny-m2m100-no-decoder')!.problem).toMatch(/onnx\/decoder_model_merged\.onnx is missing/);
    expect(byName.get('tiny-mbart50-no-codes')).toMatchObject({ status: 'corrupt', family: 'mbart50' });
    expect(byName.get('tiny-mbart50-no-codes')!.problem).toMatch(/tokenizer\.json declares no mbart50 language tokens \(added tokens like en_XX\)/);
    expect(byName.get('some-t5')).toMatchObject({ status: 'corrupt' });
    expect(byName.get('some-t5')!.problem).toMatch(/model_type is "t5"/);
  });
});
