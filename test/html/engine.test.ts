// (4) format=html with the real engine: the tiny Marian en→de fixture model, fp32, one worker.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.ts';
import { createEngine } from '../../src/engine/index.ts';
import type { Engine } from '../../src/engine/types.ts';
import { planHtml } from '../../src/text/html/index.ts';
import { CORPUS } from './corpus.ts';
import { skippedSources, tagEvents } from './tags.ts';

const FIXTURE = resolve(import.meta.dirname, '../fixtures/models/tiny-marian-en-de');

describe('html through the real engine (tiny-marian-en-de)', () => {
  let dir: string;
  let engine: Engine;
  const calls: string[][] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dragoman-html-'));
    symlinkSync(FIXTURE, join(dir, 'tiny-marian-en-de'));
    const real = await createEngine(loadConfig({ DRAGOMAN_MODELS_DIR: dir, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_WORKERS: '1' }));
    // Record what reaches the engine, then let the real engine translate it.
    engine = Object.assign(Object.create(real) as Engine, {
      translate: (segments: string[], source: string, target: string) => {
        calls.push([...segments]);
        return real.translate(segments, source, target);
      },
      close: () => real.close(),
    });
  });

  afterAll(async () => {
    await engine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function translateHtml(html: string): Promise<string> {
    const plan = planHtml(html);
    const { translations } = await engine.translate(plan.segments, 'eng_Latn', 'deu_Latn');
    return plan.assemble(translations);
  }

  it('"Click <a href=x>here</a> to <b>start</b>." reaches the engine as one segment and keeps its tags', async () => {
    const html = 'Click <a href=x>here</a> to <b>start</b>.';
    expect(planHtml(html).segments).toEqual(['Click here to start.']);
    calls.length = 0;
    const out = await translateHtml(html);
    expect(calls).toEqual([['Click here to start.']]);
    expect(tagEvents(out)).toEqual(tagEvents(html));
    expect(out).not.toBe(html);
    // The words between the tags are the engine's own translation of the whole sentence.
    const direct = await engine.translate(['Click here to start.'], 'eng_Latn', 'deu_Latn');
    expect(out.replace(/<[^>]+>/g, '')).toBe(direct.translations[0]);
  });

  it('an untranslated element inside a sentence reaches the engine as a placeholder word, and keeps its spaces', async () => {
    for (const [html, segment, token] of [
      ['<p>The cat <i translate=no>sleeps</i> here.</p>', 'The cat X here.', '<i translate=no>sleeps</i>'],
      ['<p>Hello <code>bob</code>, look at this picture!</p>', 'Hello X, look at this picture!', '<code>bob</code>'],
      ['<p>Run <code>npm install</code> before you start.</p>', 'Run X before you start.', '<code>npm install</code>'],
    ]) {
      calls.length = 0;
      const out = await translateHtml(html!);
      expect(calls, html).toEqual([[segment]]);
      expect(tagEvents(out), out).toEqual(tagEvents(html!));
      expect(out.split(token!)).toHaveLength(2);
      // Never glued to a word ("Katzen<i translate=no>sleeps</i>", "<code>bob</code>Bild"), no placeholder left over.
      expect(out, out).not.toMatch(new RegExp(`[\\p{L}\\p{N}]${token}|${token}[\\p{L}\\p{N}]`, 'u'));
      const words = out.replace(token!, '').replace(/<[^>]+>/g, '');
      expect(words, out).not.toMatch(/\bX\b/i);
      // The words are the engine's translation of the whole sentence (spacing aside).
      const direct = (await engine.translate([segment!], 'eng_Latn', 'deu_Latn')).translations[0]!;
      expect(words.replace(/\s+/g, ''), out).toBe(direct.replace(/\bX\b/gi, '').replace(/\s+/g, ''));
    }
  });

  it('a document with inline tags, a table and skipped code goes to the engine as ONE batch and keeps its markup', async () => {
    const html =
      '<!DOCTYPE html>\n<html><head><title>A man in a hat</title></head>\n<body>\n' +
      '<p>A <b>man</b> in an <i>orange hat</i> is looking at something. A girl is <a href="/k">breaking a stick</a>.</p>\n' +
      '<table><tr><td>A dog runs on the grass.</td><td><code>keep()</code></td></tr></table>\n' +
      '<img src="d.png" alt="A white dog"><!-- comment -->\n</body></html>\n';
    const plan = planHtml(html);
    calls.length = 0;
    const out = await translateHtml(html);
    expect(calls).toEqual([plan.segments]);
    expect(plan.segments).toEqual([
      'A man in a hat',
      'A man in an orange hat is looking at something.',
      'A girl is breaking a stick.',
      'A dog runs on the grass.',
      'A white dog',
    ]);
    expect(tagEvents(out)).toEqual(tagEvents(html));
    expect(skippedSources(out)).toEqual(skippedSources(html));
    expect(out).toContain('<!-- comment -->');
    if (process.env.DRAGOMAN_SHOW_HTML) console.log(out);
  });

  it('keeps the tags of every corpus entry with real translations (one engine call per entry)', async () => {
    for (const entry of CORPUS) {
      const out = await translateHtml(entry.html);
      expect(tagEvents(out), `${entry.name}: ${out}`).toEqual(tagEvents(entry.html));
      expect(skippedSources(out), entry.name).toEqual(skippedSources(entry.html));
    }
  });
});
