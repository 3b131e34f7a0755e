// The service layer over the real engine and detector: strings are grouped by detected language and each
// (source, target) group is ONE engine call carrying every segment of its strings; results keep q's order.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.ts';
import { createDetector } from '../../src/detect/index.ts';
import { createEngine } from '../../src/engine/index.ts';
import type { Engine } from '../../src/engine/types.ts';
import { createService, type Service } from '../../src/service/index.ts';
import { planHtml } from '../../src/text/html/index.ts';
import { planText } from '../../src/text/segment.ts';
import { coreModelsDir } from '../fixture-models.ts';

let engine: Engine;
let service: Service;
const calls: { segments: string[]; source: string; target: string }[] = [];

beforeAll(async () => {
  const config = loadConfig({
    DRAGOMAN_MODELS_DIR: coreModelsDir(),
    DRAGOMAN_DATA_DIR: mkdtempSync(join(tmpdir(), 'dragoman-svc-')),
    DRAGOMAN_WORKERS: '1',
    DRAGOMAN_INTRA_OP_THREADS: '1',
  });
  engine = await createEngine(config);
  const recording = Object.assign(Object.create(engine) as Engine, {
    translate(segments: string[], source: string, target: string, options?: Parameters<Engine['translate']>[3]) {
      calls.push({ segments, source, target });
      return engine.translate(segments, source, target, options);
    },
  });
  service = createService({ config, engine: recording, detector: await createDetector(), planners: { text: planText, html: planHtml } });
});
afterAll(async () => {
  await engine?.close();
});

describe('service.translate', () => {
  it('one engine call per detected source language, with every segment, results in order', async () => {
    calls.length = 0;
    const q = [
      'A man in an orange hat starring at something. A dog runs on the grass.',
      'Ein Mann mit einem orangefarbenen Hut, der etwas anstarrt.',
      'A girl in karate uniform breaking a stick with a front kick.',
      'Ein Boston Terrier läuft über saftig-grünes Gras vor einem weißen Zaun.',
    ];
    const req = service.prepareTranslate({ q, target: 'fr' });
    expect(req.chars).toBe(q.join('').length);
    const out = await service.translate(req);
    expect(out.translations.map((t) => t.input)).toEqual(q);
    expect(out.translations.map((t) => t.detectedSourceLanguage)).toEqual(['en', 'de', 'en', 'de']);
    // en→fr and de→fr: two calls, the English one with three sentences from two strings.
    expect(calls).toHaveLength(2);
    const en = calls.find((c) => c.source === 'eng_Latn')!;
    const de = calls.find((c) => c.source === 'deu_Latn')!;
    expect(en.segments).toHaveLength(3);
    expect(de.segments).toHaveLength(2);
    expect(en.target).toBe('fra_Latn');
    expect(out.routes).toHaveLength(2);
  });

  it('source given: no detection fields, same-language strings skip the engine', async () => {
    calls.length = 0;
    const out = await service.translate(service.prepareTranslate({ q: ['Hallo.'], source: 'de', target: 'de' }));
    expect(out.translations).toEqual([{ translatedText: 'Hallo.', input: 'Hallo.' }]);
    expect(calls).toHaveLength(0);
  });

  it('passes alternatives through to the engine and returns them per string', async () => {
    const out = await service.translate(
      service.prepareTranslate({ q: 'A man in an orange hat starring at something.', source: 'en', target: 'de' }, { alternatives: 2 }),
    );
    const alts = out.translations[0]!.alternatives!;
    expect(Array.isArray(alts)).toBe(true);
    expect(alts.length).toBeGreaterThan(0);
    expect(alts).not.toContain(out.translations[0]!.translatedText);
  });

  it('html: detects on the text, not the markup', async () => {
    const html = '<span class="the quick brown fox jumps over the lazy dog and runs away">Ein Mann mit einem Hut.</span>';
    const out = await service.translate(service.prepareTranslate({ q: html, target: 'en', format: 'html' }));
    expect(out.translations[0]!.detectedSourceLanguage).toBe('de');
    expect(out.translations[0]!.translatedText).toMatch(/^<span class="the quick brown fox jumps over the lazy dog and runs away">A /);
  });

  it('counts code points (markup included for html)', () => {
    expect(service.prepareTranslate({ q: '<b>😀</b>', target: 'de', format: 'html' }).chars).toBe(8);
    expect(service.prepareDetect({ q: ['ab', 'ç'] }).chars).toBe(3);
  });
});
