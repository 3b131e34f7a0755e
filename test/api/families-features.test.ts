// The engine's shared features with each further family's fixture (multi-target and multi-source OPUS-MT, M2M-100,
// mBART-50), each installed alone: concurrent requests answered in one batch with the results of each alone, a
// repeated request served from the translation cache, a text of several segments and one longer than the model's
// position table, and format=html keeping its inline tags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { BatchEvent, DragomanEngine } from '../../src/engine/index.ts';
import { familyReference } from '../fixture-models.ts';
import { engineOver, linkModel, tempDir } from '../engine/helpers.ts';
import { tagEvents } from '../html/tags.ts';
import { startTestApp, type TestApp } from './helpers.ts';

const FLORES: Record<string, string> = { en: 'eng_Latn', de: 'deu_Latn', fr: 'fra_Latn', cs: 'ces_Latn' };
const CASES = [
  { folder: 'opus-mt-tiny-en-mul', source: 'en', target: 'fr' },
  { folder: 'opus-mt-tiny-mul-en', source: 'fr', target: 'en' },
  { folder: 'tiny-m2m100', source: 'en', target: 'de' },
  { folder: 'tiny-mbart50', source: 'de', target: 'en' },
];

for (const { folder, source, target } of CASES) {
  const sentences = familyReference(folder)
    .filter((r) => r.src_lang === source && r.tgt_lang === target)
    .map((r) => r.src);
  const [s, t] = [FLORES[source]!, FLORES[target]!];

  describe(`${folder} ${source}>${target}: batching`, () => {
    const dir = tempDir('dragoman-family-batch-');
    let engine: DragomanEngine;
    const batches: BatchEvent[] = [];
    beforeAll(async () => {
      linkModel(join(dir.path, folder), folder);
      engine = await engineOver(dir.path, { DRAGOMAN_CACHE_SIZE: '0', DRAGOMAN_BEAM: '1', DRAGOMAN_WORKERS: '1', DRAGOMAN_BATCH_WAIT_MS: '20' });
      engine.events.on('batch', (e: BatchEvent) => batches.push(e));
    });
    afterAll(async () => {
      await engine.close();
      dir.remove();
    });

    it('8 concurrent requests share batches and each gets what it gets alone', async () => {
      const requests = sentences.slice(0, 8).map((x) => [x]);
      const alone: string[][] = [];
      for (const q of requests) alone.push((await engine.translate(q, s, t)).translations);
      batches.length = 0;
      const together = await Promise.all(requests.map((q) => engine.translate(q, s, t)));
      expect(together.map((r) => r.translations)).toEqual(alone);
      expect(together.every((r) => r.route.join() === folder)).toBe(true);
      expect(batches.every((b) => b.model === folder)).toBe(true);
      expect(batches.reduce((n, b) => n + b.rows, 0)).toBe(8);
      expect(batches.length).toBeLessThan(8);
      expect(Math.max(...batches.map((b) => b.rows))).toBeGreaterThan(1);
    });
  });

  describe(`${folder} ${source}>${target} over HTTP: cache, long input, HTML`, () => {
    const dir = tempDir('dragoman-family-http-');
    let app: TestApp;
    let key: string;
    beforeAll(async () => {
      linkModel(join(dir.path, folder), folder);
      app = await startTestApp({ DRAGOMAN_MODELS_DIR: dir.path, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_BEAM: '1' });
      key = (await app.key()).secret;
    });
    afterAll(async () => {
      await app.close();
      dir.remove();
    });
    const translate = async (q: string | string[], format?: 'html') => {
      const r = await app.call('POST', '/v1/translate', { key, body: { q, source, target, ...(format ? { format } : {}) } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.headers.get('x-dragoman-model')).toBe(folder);
      return r.body.data.translations.map((x: { translatedText: string }) => x.translatedText) as string[];
    };
    const engine = () => app.app.engine as DragomanEngine;

    it('answers a repeated request from the translation cache, without running the model', async () => {
      const first = await translate(sentences[10]!);
      const hits = engine().cacheStats().hits;
      let batches = 0;
      const count = () => void batches++;
      engine().events.on('batch', count);
      try {
        expect(await translate(sentences[10]!)).toEqual(first);
        expect(engine().cacheStats().hits).toBe(hits + 1);
        expect(batches).toBe(0);
      } finally {
        engine().events.off('batch', count);
      }
    });

    it('translates a text of several sentences as each sentence alone, and one far beyond the position table', async () => {
      const three = sentences.slice(20, 23);
      const each = await translate(three);
      expect(await translate(three.join(' '))).toEqual([each.join(' ')]);
      // 40 captions without a full stop between them: one segment well past the models' 128 positions
      const long = Array.from({ length: 40 }, (_, i) => sentences[i]!.replace(/\.$/, '')).join(' and ');
      const [out] = await translate(long);
      expect(out!.length).toBeGreaterThan(200);
    });

    it('format=html keeps the inline tags around the translated words', async () => {
      const words = sentences[30]!.replace(/\.$/, '').split(' ');
      const html = `<p>${words.slice(0, 2).join(' ')} <b>${words.slice(2, 4).join(' ')}</b> <a href="x">${words.slice(4).join(' ')}</a>.</p>`;
      const [out] = await translate(html, 'html');
      expect(tagEvents(out!)).toEqual(tagEvents(html));
      // the words between the tags are the model's translation of the whole sentence
      const [plain] = await translate(`${words.join(' ')}.`);
      expect(out!.replace(/<[^>]+>/g, '')).toBe(plain);
    });
  });
}
