// A document's units reach the engine as bulk work (the engine serves interactive requests before them), through the
// real service and engine; a short request through the same service is interactive.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.ts';
import { createDetector } from '../../src/detect/index.ts';
import { createEngine, type BatchEvent, type DragomanEngine } from '../../src/engine/index.ts';
import { SegmentTableBuilder, SegmentTableReader } from '../../src/documents/segment-table.ts';
import { translateUnits } from '../../src/documents/units.ts';
import { resolveLanguage } from '../../src/languages/catalog.ts';
import { serviceFromConfig, type Service } from '../../src/service/index.ts';
import { planHtml } from '../../src/text/html/index.ts';
import { planText } from '../../src/text/segment.ts';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/models/tiny-marian-en-de');

describe('document units and priorities', () => {
  let dir: string;
  let engine: DragomanEngine;
  let service: Service;
  const priorities: string[] = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dragoman-units-'));
    symlinkSync(FIXTURE, join(dir, 'tiny-marian-en-de'));
    const config = loadConfig({ DRAGOMAN_MODELS_DIR: dir, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1', DRAGOMAN_CACHE_SIZE: '0' });
    engine = await createEngine(config);
    engine.events.on('batch', (e: BatchEvent) => priorities.push(e.priority));
    const detector = await createDetector({ secondOpinion: false });
    service = serviceFromConfig({ config, engine, detector, planners: { text: planText, html: planHtml } });
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a document\'s units as bulk, and a short request as interactive', async () => {
    const table = new SegmentTableBuilder();
    for (const s of ['A dog runs in the park.', 'Two children play football.', 'A woman reads a book.']) table.add([s]);
    const en = resolveLanguage('en')!;
    const de = resolveLanguage('de')!;
    priorities.length = 0;
    const out = new SegmentTableReader(await translateUnits(service, table.build(), en, de, () => undefined));
    expect(out.segmentsOf(0)?.[0]).toBeTruthy();
    expect(priorities.length).toBeGreaterThan(0);
    expect(new Set(priorities)).toEqual(new Set(['bulk']));

    priorities.length = 0;
    const req = service.prepareTranslate({ q: 'A man rides a bike.', source: 'en', target: 'de' });
    await service.translate(req);
    expect(priorities).toEqual(['interactive']);
  }, 60_000);
});
