// Quality or speed on request, and context, instructions and formality in an LLM translator's prompt, on real
// servers: one with an LLM translator (tiny-qwen3-mt, whose dragoman.json words all three) beside OPUS-MT models, one
// with OPUS-MT models only. The official deepl-node client sends modelType, context, customInstructions and
// formality; /v1 sends model, context, instructions and formality. X-Dragoman-Model names the model that answered,
// and /v1/usage shows what was charged.
import * as deepl from 'deepl-node';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkModel, tempDir } from '../engine/helpers.ts';
import { llmDev } from '../fixture-models.ts';
import { startTestApp, type TestApp } from './helpers.ts';

const LLM = 'tiny-qwen3-mt';
const NMT = 'tiny-marian-en-de';
const SOURCE = 'A man is walking down the street.';
const CONTEXT = 'On a sunny day.';

let both: TestApp;
let nmtOnly: TestApp;
let key: string;
let nmtKey: string;
const dirs = [tempDir('dragoman-choice-'), tempDir('dragoman-choice-nmt-')];

beforeAll(async () => {
  linkModel(join(dirs[0]!.path, LLM), LLM);
  for (const d of dirs) {
    linkModel(join(d.path, NMT), NMT);
    linkModel(join(d.path, 'tiny-marian-de-en'), 'tiny-marian-de-en');
  }
  const env = { DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_BEAM: '1' };
  [both, nmtOnly] = await Promise.all([
    startTestApp({ ...env, DRAGOMAN_MODELS_DIR: dirs[0]!.path }),
    startTestApp({ ...env, DRAGOMAN_MODELS_DIR: dirs[1]!.path }),
  ]);
  key = (await both.key()).secret;
  nmtKey = (await nmtOnly.key()).secret;
});

afterAll(async () => {
  await Promise.all([both?.close(), nmtOnly?.close()]);
  for (const d of dirs) d.remove();
});

const client = (app: TestApp, secret: string) => new deepl.DeepLClient(secret, { serverUrl: app.url, maxRetries: 0, sendPlatformInfo: false });
const deeplForm = (app: TestApp, secret: string, fields: Record<string, string | string[]>) => {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) body.append(k, x);
  return fetch(`${app.url}/v2/translate`, {
    method: 'POST', body, headers: { authorization: `DeepL-Auth-Key ${secret}`, 'content-type': 'application/x-www-form-urlencoded' },
  });
};
const charged = async (app: TestApp, secret: string) => (await app.call('GET', '/v1/usage', { key: secret })).body.data.charactersUsed as number;

describe('DeepL model_type and the prompt additions, with an LLM translator installed', () => {
  it('translates with modelType, context, customInstructions and formality, and reports modelTypeUsed', async () => {
    const out = await client(both, key).translateText(SOURCE, 'en', 'de', {
      modelType: 'quality_optimized', context: CONTEXT, customInstructions: ['Be brief.'], formality: 'more',
    });
    expect(out.modelTypeUsed).toBe('quality_optimized');
    expect(out.text.trim()).not.toBe('');
    expect(out.text).not.toBe(SOURCE);
  });

  it('picks the LLM translator for quality_optimized and the OPUS-MT model for latency_optimized (X-Dragoman-Model)', async () => {
    const quality = await deeplForm(both, key, { text: SOURCE, source_lang: 'EN', target_lang: 'DE', model_type: 'quality_optimized' });
    const latency = await deeplForm(both, key, { text: SOURCE, source_lang: 'EN', target_lang: 'DE', model_type: 'latency_optimized' });
    expect(quality.status).toBe(200);
    expect(latency.status).toBe(200);
    expect(quality.headers.get('x-dragoman-model')).toBe(LLM);
    expect(latency.headers.get('x-dragoman-model')).toBe(NMT);
    expect((await quality.json()).translations[0].model_type_used).toBe('quality_optimized');
    expect((await latency.json()).translations[0].model_type_used).toBe('latency_optimized');
    const prefer = await client(both, key).translateText(SOURCE, 'en', 'de', { modelType: 'prefer_quality_optimized' });
    expect(prefer.modelTypeUsed).toBe('quality_optimized');
  });

  it('refuses custom instructions with latency_optimized, and more than ten of them, as DeepL does', async () => {
    await expect(client(both, key).translateText(SOURCE, 'en', 'de', { modelType: 'latency_optimized', customInstructions: ['Be brief.'] }))
      .rejects.toThrow("Value for 'model_type' not supported.");
    const many = await deeplForm(both, key, { text: SOURCE, target_lang: 'DE', custom_instructions: Array.from({ length: 11 }, (_v, i) => `Rule ${i}.`) });
    expect(many.status).toBe(400);
    expect((await many.json()).message).toBe("Value for 'custom_instructions' not supported.");
  });

  it('does not charge the characters of context', async () => {
    const before = await charged(both, key);
    await client(both, key).translateText(SOURCE, 'en', 'de', { modelType: 'quality_optimized', context: CONTEXT });
    expect(await charged(both, key) - before).toBe(SOURCE.length);
  });
});

describe('DeepL against OPUS-MT models only', () => {
  it('answers quality_optimized with DeepL\'s refusal and its reason, and charges nothing', async () => {
    const before = await charged(nmtOnly, nmtKey);
    const r = await deeplForm(nmtOnly, nmtKey, { text: SOURCE, source_lang: 'EN', target_lang: 'DE', model_type: 'quality_optimized' });
    expect(r.status).toBe(400);
    const body = await r.json();
    expect(body.message).toBe("Value for 'model_type' not supported.");
    expect(body.detail).toMatch(/^No LLM translator installed translates English \('en'\) into German \('de'\)/);
    await expect(client(nmtOnly, nmtKey).translateText(SOURCE, 'en', 'de', { modelType: 'quality_optimized' })).rejects.toThrow(/model_type/);
    expect(await charged(nmtOnly, nmtKey)).toBe(before);
  });

  it('refuses formality more/less as DeepL does for a language without it, and ignores prefer_*', async () => {
    await expect(client(nmtOnly, nmtKey).translateText(SOURCE, 'en', 'de', { formality: 'more' }))
      .rejects.toThrow("'formality' is not supported for given 'target_lang'.");
    const prefer = await client(nmtOnly, nmtKey).translateText(SOURCE, 'en', 'de', { formality: 'prefer_less', modelType: 'latency_optimized' });
    expect(prefer.modelTypeUsed).toBe('latency_optimized');
    expect(prefer.text.trim()).not.toBe('');
  });

  it('refuses custom instructions (they take a quality-optimized model), and says context went unused', async () => {
    await expect(client(nmtOnly, nmtKey).translateText(SOURCE, 'en', 'de', { customInstructions: ['Be brief.'] }))
      .rejects.toThrow("Value for 'model_type' not supported.");
    const r = await deeplForm(nmtOnly, nmtKey, { text: SOURCE, source_lang: 'EN', target_lang: 'DE', context: CONTEXT });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-dragoman-unused')).toBe('context');
    expect(r.headers.get('x-dragoman-model')).toBe(NMT);
  });
});

describe('/v1/translate: model, context, instructions, formality', () => {
  const v1 = (app: TestApp, secret: string, body: Record<string, unknown>) => app.call('POST', '/v1/translate', { key: secret, body: { q: SOURCE, source: 'en', target: 'de', ...body } });

  it('answers "quality", "speed" and a model\'s name with that model', async () => {
    expect((await v1(both, key, { model: 'quality' })).headers.get('x-dragoman-model')).toBe(LLM);
    expect((await v1(both, key, { model: 'speed' })).headers.get('x-dragoman-model')).toBe(NMT);
    expect((await v1(both, key, { model: LLM })).headers.get('x-dragoman-model')).toBe(LLM);
    expect((await v1(both, key, {})).headers.get('x-dragoman-model')).toBe(NMT);
  });

  it('refuses an unknown model naming the valid choices, and a model that does not serve the pair', async () => {
    const unknown = await v1(both, key, { model: 'gpt-9' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain("Unknown model 'gpt-9'");
    expect(unknown.body.error.message).toContain(`"quality", "speed" or an installed model (tiny-marian-de-en, ${NMT}, ${LLM})`);
    const wrong = await v1(both, key, { model: 'tiny-marian-de-en' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toContain("Model 'tiny-marian-de-en' does not translate English");
    const none = await v1(nmtOnly, nmtKey, { model: 'quality' });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toMatch(/^No LLM translator installed translates English/);
  });

  it('gives context, instructions and formality to the LLM translator, charging q only', async () => {
    const before = await charged(both, key);
    const r = await v1(both, key, { model: 'quality', context: CONTEXT, instructions: ['Be brief.'], formality: 'less' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-dragoman-model')).toBe(LLM);
    expect(r.body.data.translations[0].translatedText.trim()).not.toBe('');
    expect(await charged(both, key) - before).toBe(SOURCE.length);
  });

  it('refuses each part a model takes no wording for, with the reason, never dropping it', async () => {
    for (const body of [{ context: CONTEXT }, { instructions: ['Be brief.'] }, { formality: 'more' }]) {
      const r = await v1(both, key, { ...body, model: 'speed' });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.message).toMatch(new RegExp(`^Model '${NMT}', which translates English \\('en'\\) into German \\('de'\\), takes no .*is not an LLM translator`));
    }
  });

  it('bounds the prompt: past the limits a 400 says which', async () => {
    const long = await v1(both, key, { model: 'quality', context: 'x'.repeat(2_001) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toContain("'context' has 2001 characters; at most 2000");
    const eleven = await v1(both, key, { model: 'quality', instructions: Array.from({ length: 11 }, () => 'Be brief.') });
    expect(eleven.status).toBe(400);
    expect(eleven.body.error.message).toContain('11 instructions given; at most 10');
    // Within the characters but past half of what the tiny model reads at once (its context is 256 tokens).
    const tokens = await v1(both, key, { model: 'quality', context: 'A man is walking down the street. '.repeat(20) });
    expect(tokens.status).toBe(400);
    expect(tokens.body.error.message).toMatch(/^The context, instructions and formality take \d+ tokens in the prompt of model tiny-qwen3-mt, more than the 64 they may/);
  });
});

describe('the same choice on Google v2, LibreTranslate and /v1/documents', () => {
  const body = { q: SOURCE, source: 'en', target: 'de', format: 'text' };

  it('Google v2: model "nmt" takes the OPUS-MT model, "quality" the LLM translator, and says which kind answered', async () => {
    const nmt = await both.call('POST', `/language/translate/v2?key=${key}`, { body: { ...body, model: 'nmt' } });
    const llm = await both.call('POST', `/language/translate/v2?key=${key}`, { body: { ...body, model: 'quality' } });
    expect(nmt.headers.get('x-dragoman-model')).toBe(NMT);
    expect(nmt.body.data.translations[0].model).toBe('nmt');
    expect(llm.headers.get('x-dragoman-model')).toBe(LLM);
    expect(llm.body.data.translations[0].model).toBe('translation-llm');
    const refused = await nmtOnly.call('POST', `/language/translate/v2?key=${nmtKey}`, { body: { ...body, model: 'quality' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^No LLM translator installed translates English/);
  });

  it('LibreTranslate: model "quality" and "speed" as on /v1', async () => {
    const llm = await both.call('POST', '/libretranslate/translate', { body: { ...body, api_key: key, model: 'quality' } });
    const nmt = await both.call('POST', '/libretranslate/translate', { body: { ...body, api_key: key, model: 'speed' } });
    expect(llm.headers.get('x-dragoman-model')).toBe(LLM);
    expect(nmt.headers.get('x-dragoman-model')).toBe(NMT);
  });

  it('/v1/documents: the form\'s model field translates the document with that model, and is refused where the pair has none', async () => {
    const v1Text = async (q: string, model: string) =>
      (await both.call('POST', '/v1/translate', { key, body: { ...body, q, model } })).body.data.translations[0].translatedText as string;
    // A sentence the two models translate differently, so the document's text shows which one translated it.
    let sentence = '';
    for (const d of llmDev(LLM).filter((x) => x.src_lang === 'en')) {
      if ((await v1Text(d.src, 'quality')) !== (await v1Text(d.src, 'speed'))) {
        sentence = d.src;
        break;
      }
    }
    expect(sentence).not.toBe('');
    const submit = (app: TestApp, secret: string, model: string) => {
      const form = new FormData();
      form.set('file', new Blob([`${sentence}\n`], { type: 'text/plain' }), 'street.txt');
      form.set('source', 'en');
      form.set('target', 'de');
      form.set('model', model);
      return fetch(`${app.url}/v1/documents`, { method: 'POST', body: form, headers: { 'x-api-key': secret } });
    };
    const resultOf = async (model: string) => {
      const r = await submit(both, key, model);
      expect(r.status).toBe(202);
      const { document } = ((await r.json()) as { data: { document: { id: string; model?: string } } }).data;
      expect(document.model).toBe(model);
      for (let i = 0; i < 200; i++) {
        const s = await both.call('GET', `/v1/documents/${document.id}`, { key });
        if (s.body.data.document.status === 'done') break;
        expect(s.body.data.document.status).not.toBe('error');
        await new Promise((done) => setTimeout(done, 50));
      }
      return (await fetch(`${both.url}/v1/documents/${document.id}/result`, { headers: { 'x-api-key': key } })).text();
    };
    const direct = async (model: string) => (await v1Text(sentence, model)).trim();
    expect((await resultOf('quality')).trim()).toBe(await direct('quality'));
    expect((await resultOf('speed')).trim()).toBe(await direct('speed'));
    const refused = await submit(nmtOnly, nmtKey, 'quality');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/^No LLM translator installed translates English/);
  });
});
