// A document translated by an LLM translator that takes context reads each paragraph's earlier paragraphs as context
// (DRAGOMAN_DOCUMENT_CONTEXT_CHARS, default 500): on a real server with tiny-qwen3-mt, each paragraph comes back as
// /v1/translate gives it with the paragraphs before it as `context`, the first one as without; with the setting at 0
// every paragraph is translated on its own; the translation cache keeps a sentence read with context apart from the
// same sentence without it. The document's charge is its own characters either way, and a document an OPUS-MT model
// translates is the same with or without the setting.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkModel, tempDir } from '../engine/helpers.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { docxOf, docxParagraphs } from './docx-text.ts';
import { download, upload, waitForJob } from './jobs-client.ts';

const LLM = 'tiny-qwen3-mt';
const PARAGRAPHS = ['A man is riding a horse.', 'He is wearing a red hat.', 'The dog runs after it.'];

const dir = tempDir('dragoman-context-');
let withContext: TestApp;
let without: TestApp;
const keys = new Map<TestApp, string>();

beforeAll(async () => {
  linkModel(join(dir.path, LLM), LLM);
  linkModel(join(dir.path, 'tiny-marian-en-de'), 'tiny-marian-en-de');
  // The translation cache is on: a sentence read with its context must never be served to a request without it.
  const env = { DRAGOMAN_MODELS_DIR: dir.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_BEAM: '1' };
  [withContext, without] = await Promise.all([startTestApp(env), startTestApp({ ...env, DRAGOMAN_DOCUMENT_CONTEXT_CHARS: '0' })]);
  for (const t of [withContext, without]) keys.set(t, (await t.key({ rpm: null })).secret);
});

afterAll(async () => {
  await Promise.all([withContext?.close(), without?.close()]);
  dir.remove();
});

async function translatedDocument(t: TestApp, fields: Record<string, string>): Promise<{ paragraphs: string[]; characters: number }> {
  const key = keys.get(t)!;
  const up = await upload(t.url, key, 'story.docx', await docxOf(PARAGRAPHS), { source: 'en', target: 'de', ...fields });
  expect(up.status, JSON.stringify(up.body)).toBe(202);
  const done = await waitForJob(t.url, key, up.body.data.document.id);
  expect(done.status, JSON.stringify(done)).toBe('done');
  const result = await download(t.url, key, up.body.data.document.id);
  expect(result.status).toBe(200);
  return { paragraphs: await docxParagraphs(result.bytes), characters: done.characters };
}

async function translated(t: TestApp, q: string, context?: string): Promise<string> {
  const r = await t.call('POST', '/v1/translate', { key: keys.get(t)!, body: { q, source: 'en', target: 'de', model: 'quality', ...(context ? { context } : {}) } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.headers.get('x-dragoman-model')).toBe(LLM);
  return r.body.data.translations[0].translatedText as string;
}

describe('earlier paragraphs as context for an LLM translator', () => {
  it('give each paragraph the paragraphs before it as context, the first none', async () => {
    const doc = await translatedDocument(withContext, { model: 'quality' });
    // What /v1/translate gives with that context, asked of the other server (its own cache).
    expect(doc.paragraphs).toEqual([
      await translated(without, PARAGRAPHS[0]!),
      await translated(without, PARAGRAPHS[1]!, PARAGRAPHS[0]),
      await translated(without, PARAGRAPHS[2]!, `${PARAGRAPHS[0]}\n${PARAGRAPHS[1]}`),
    ]);
    // The context changes what the model writes, and the cache keeps the two apart: the same server answers the
    // paragraphs alone as the other server does, not as it translated them in the document.
    const alone = await Promise.all(PARAGRAPHS.map((p) => translated(withContext, p)));
    expect(alone).toEqual(await Promise.all(PARAGRAPHS.map((p) => translated(without, p))));
    expect(doc.paragraphs[0]).toBe(alone[0]);
    expect(doc.paragraphs.slice(1)).not.toEqual(alone.slice(1));
  });

  it('are not read with DRAGOMAN_DOCUMENT_CONTEXT_CHARS=0, and are never charged', async () => {
    const doc = await translatedDocument(without, { model: 'quality' });
    expect(doc.paragraphs).toEqual(await Promise.all(PARAGRAPHS.map((p) => translated(without, p))));
    const read = await translatedDocument(withContext, { model: 'quality' });
    expect(read.characters).toBe(doc.characters);
    expect(doc.characters).toBe(PARAGRAPHS.join('').length);
  });

  it('leave a document an OPUS-MT model translates as it is', async () => {
    const a = await translatedDocument(withContext, { model: 'speed' });
    const b = await translatedDocument(without, { model: 'speed' });
    expect(a.paragraphs).toEqual(b.paragraphs);
    const r = await without.call('POST', '/v1/translate', { key: keys.get(without)!, body: { q: PARAGRAPHS, source: 'en', target: 'de', model: 'speed' } });
    expect(a.paragraphs).toEqual(r.body.data.translations.map((x: { translatedText: string }) => x.translatedText));
  });
});
