// A sentence holding very many of a glossary's terms, on a real server with the fixture tiny-marian-en-de model: 150
// terms in one sentence are all placed (the phrases' room stays within the model's longest output), and terms whose
// translations cannot fit in one output are a 400 that says so, on /v1/translate, DeepL (deepl-node) and in a document
// job (failed and refunded); never a 500.
import * as deepl from 'deepl-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { upload, waitForJob } from '../documents/jobs-client.ts';
import { devRows } from './dev-glossary.ts';

let t: TestApp;
let key: { id: string; secret: string };

// Real words of the fixture's dev data: English words of the sources, German words of the references.
const rows = devRows();
const SOURCE_WORDS = [...new Set(rows.flatMap((r) => r.src.toLowerCase().match(/\p{L}{5,}/gu) ?? []))];
const TARGET_WORDS = [...new Set(rows.flatMap((r) => r.ref.match(/\p{L}{5,}/gu) ?? []))];

beforeAll(async () => {
  t = await startTestApp();
  key = await t.key({ rpm: null });
});

afterAll(async () => {
  await t?.close();
});

async function glossary(entries: { source: string; target: string }[]): Promise<string> {
  const r = await t.call('POST', '/v1/glossaries', { key: key.secret, body: { name: 'many', source: 'en', target: 'de', entries } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.glossary.id as string;
}

const used = async () => (await t.call('GET', '/v1/usage', { key: key.secret })).body.data.charactersUsed as number;

const TOO_MANY = /^A sentence holds 20 glossary terms whose translations take \d+ tokens, more than the model can write in one sentence \(510 tokens\): split the sentence or use fewer of the glossary's terms in it\./;

/** 20 terms, each translated by a phrase of about 20 words: far more tokens than one output may have. */
const longTerms = () => SOURCE_WORDS.slice(0, 20).map((source, i) => ({ source, target: TARGET_WORDS.slice(i * 20, i * 20 + 20).join(' ').slice(0, 190) }));

describe('a sentence with very many glossary terms', () => {
  it('150 terms in one sentence: 200, and every target term is in the translation', async () => {
    expect(SOURCE_WORDS.length).toBeGreaterThan(150);
    const entries = SOURCE_WORDS.slice(0, 150).map((source, i) => ({ source, target: TARGET_WORDS[i]! }));
    const id = await glossary(entries);
    const q = `${entries.map((e) => e.source).join(', ')}.`;
    const r = await t.call('POST', '/v1/translate', { key: key.secret, body: { q, source: 'en', target: 'de', glossary: id } });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    const out = r.body.data.translations[0].translatedText as string;
    expect(entries.filter((e) => !out.includes(e.target)).map((e) => e.target)).toEqual([]);
  });

  it("terms whose translations do not fit in one output: 400 saying so, nothing charged (/v1 and deepl-node)", async () => {
    const entries = longTerms();
    const id = await glossary(entries);
    const q = `${entries.map((e) => e.source).join(' and ')}.`;
    const before = await used();
    const r = await t.call('POST', '/v1/translate', { key: key.secret, body: { q, source: 'en', target: 'de', glossary: id } });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({ code: 400, type: 'invalid_request', message: expect.stringMatching(TOO_MANY) });

    const client = new deepl.DeepLClient(key.secret, { serverUrl: t.url, maxRetries: 0, sendPlatformInfo: false });
    const refused = await client.translateText(q, 'en', 'de', { glossary: id }).then(() => undefined, (err: unknown) => err as Error);
    expect(refused).toBeInstanceOf(deepl.DeepLError);
    expect(refused!.message).toMatch(/A sentence holds 20 glossary terms/);
    expect(await used()).toBe(before);
    // The same server still translates with the glossary where the terms fit.
    const fits = await t.call('POST', '/v1/translate', { key: key.secret, body: { q: `The ${entries[0]!.source} is here.`, source: 'en', target: 'de', glossary: id } });
    expect(fits.status).toBe(200);
    expect(fits.body.data.translations[0].translatedText).toContain(entries[0]!.target);
  });

  it('in a document: the job fails with the same message and is refunded', async () => {
    const entries = longTerms();
    const id = await glossary(entries);
    const before = await used();
    const text = `The house is small.\n\n${entries.map((e) => e.source).join(' and ')}.\n`;
    const up = await upload(t.url, key.secret, 'terms.txt', text, { source: 'en', target: 'de', glossary: id });
    expect(up.status, JSON.stringify(up.body)).toBe(202);
    const done = await waitForJob(t.url, key.secret, up.body.data.document.id);
    expect(done.status).toBe('error');
    expect(done.error.message).toMatch(TOO_MANY);
    expect(done.error.message).toMatch(/The characters were refunded\.$/);
    expect(await used()).toBe(before);
  });
});
