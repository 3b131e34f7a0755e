// The guarantee on the real tiny-marian-en-de model, through the service (term matching, kept spans) and the engine's
// constrained search: every target term of a sentence's glossary terms is in its translation; a sentence with no
// term comes out exactly as without a glossary; placeholders, URLs and e-mail addresses come back verbatim, once,
// not glued to a word — in plain text and in HTML.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/env.ts';
import { createDetector } from '../../src/detect/index.ts';
import { createEngine, type DragomanEngine } from '../../src/engine/index.ts';
import { GlossaryBook } from '../../src/glossaries/book.ts';
import { SqliteGlossaryStore } from '../../src/glossaries/sqlite.ts';
import { createService, type Service } from '../../src/service/index.ts';
import { planHtml } from '../../src/text/html/index.ts';
import { planText } from '../../src/text/segment.ts';
import { FIXTURES, devGlossary, devRows, padGlossary, splitByTerms } from './dev-glossary.ts';
import { sqliteGlossaryStore } from '../stores.ts';

let engine: DragomanEngine;
let service: Service;
let book: GlossaryBook;
const OWNER = 'key-1';

beforeAll(async () => {
  engine = await createEngine(loadConfig({ DRAGOMAN_MODELS_DIR: FIXTURES, DRAGOMAN_PRECISION: 'fp32', DRAGOMAN_WORKERS: '1', DRAGOMAN_INTRA_OP_THREADS: '1' }));
  book = new GlossaryBook(sqliteGlossaryStore(':memory:'), { maxEntries: 10_000, maxTermChars: 200, perKey: 100 });
  service = createService({
    config: { maxStrings: 128, maxChars: 100_000 }, engine, detector: await createDetector({ secondOpinion: false }),
    planners: { text: planText, html: planHtml }, glossaries: book, keepSpans: true,
  });
});

afterAll(async () => {
  await engine?.close();
});

async function translate(q: string[], options: Parameters<Service['prepareTranslate']>[1] = {}, format = 'text') {
  const out: string[] = [];
  for (let i = 0; i < q.length; i += 100) {
    const r = await service.translate(service.prepareTranslate({ q: q.slice(i, i + 100), source: 'en', target: 'de', format }, options));
    out.push(...r.translations.map((t) => t.translatedText));
  }
  return out;
}

// A word: letters, digits, hyphens and apostrophes ("T-Shirt" does not hold the word "Shirt").
const wordCount = (text: string, word: string) => text.split(/[^\p{L}\p{N}'-]+/u).filter((w) => w === word).length;

describe('glossary terms are enforced in decoding', () => {
  const rows = devRows();
  const entries = devGlossary(rows);
  const { withTerms, without } = splitByTerms(rows, entries);

  it('every target term appears in all of 120 sentences holding a term', async () => {
    expect(entries.length).toBeGreaterThan(30);
    const g = await book.create(OWNER, 'dev', [{ source: 'en', target: 'de', entries: entries.map((e) => [e.source, e.target]) }]);
    const sample = withTerms.slice(0, 120);
    const out = await translate(sample.map((s) => s.row.src), { glossary: { owner: OWNER, id: g.id } });
    const misses = sample.filter((s, i) => s.targets.some((t) => wordCount(out[i]!, t) === 0));
    expect(misses).toEqual([]);
    // Without the glossary the model alone misses many of them: the constraint is doing the work.
    const plain = await translate(sample.map((s) => s.row.src));
    const plainMisses = sample.filter((s, i) => s.targets.some((t) => wordCount(plain[i]!, t) === 0));
    expect(plainMisses.length).toBeGreaterThan(20);
    // Where the model already wrote every target term once on its own, its translation stands unchanged.
    const natural = sample.map((s, i) => i).filter((i) => sample[i]!.targets.every((t) => wordCount(plain[i]!, t) === sample[i]!.targets.filter((x) => x === t).length));
    expect(natural.length).toBeGreaterThan(10);
    expect(natural.map((i) => out[i])).toEqual(natural.map((i) => plain[i]));
  });

  it('sentences without a term translate exactly as without the glossary (the dev glossary, and 1,000 entries)', async () => {
    const g = await book.create(OWNER, 'dev', [{ source: 'en', target: 'de', entries: entries.map((e) => [e.source, e.target]) }]);
    const big = await book.create(OWNER, 'big', [{ source: 'en', target: 'de', entries: padGlossary([], 1000).map((e) => [e.source, e.target]) }]);
    const noTerm = without.map((r) => r.src);
    expect(noTerm.length).toBeGreaterThanOrEqual(40);
    expect(await translate(noTerm, { glossary: { owner: OWNER, id: g.id } })).toEqual(await translate(noTerm));
    const first = rows.slice(0, 100).map((r) => r.src);
    expect(await translate(first, { glossary: { owner: OWNER, id: big.id } })).toEqual(await translate(first));
  });
});

describe('do-not-translate spans come back verbatim', () => {
  const SPANS = ['{{user_name}}', '{0}', '%s', '%(count)d', '${total}', 'https://example.com/a/b?c=1', 'support@example.org'];
  const notGlued = (out: string, span: string) => {
    const at = out.indexOf(span);
    const before = out.charAt(at - 1);
    const after = out.charAt(at + span.length);
    return at >= 0 && out.indexOf(span, at + 1) < 0 && !/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after);
  };

  it('in plain text: every span of 70 sentences, once and not glued', async () => {
    const rows = devRows().slice(0, 70);
    const q = rows.map((r, i) => `${r.src.replace(/\.$/, '')} ${SPANS[i % SPANS.length]}.`);
    const out = await translate(q);
    const lost = q.filter((_, i) => !notGlued(out[i]!, SPANS[i % SPANS.length]!));
    expect(lost).toEqual([]);
  });

  it('several spans in one sentence', async () => {
    const [out] = await translate(['Hello {{name}}, see https://example.com/x and write to a@b.de today.']);
    for (const s of ['{{name}}', 'https://example.com/x', 'a@b.de']) expect(notGlued(out!, s)).toBe(true);
  });

  it('in HTML: spans in text, and translate="no" / notranslate content', async () => {
    const html = '<p>Hello {{name}}, the <span translate="no">Blue House</span> is at https://example.com/x.</p><p class="notranslate">The dog</p>';
    const [out] = await translate([html], {}, 'html');
    expect(out).toContain('<span translate="no">Blue House</span>');
    expect(out).toContain('<p class="notranslate">The dog</p>');
    expect(notGlued(out!, '{{name}}')).toBe(true);
    expect(notGlued(out!, 'https://example.com/x')).toBe(true);
  });

  it('DRAGOMAN_KEEP_SPANS off (keepSpans: false): the model alone loses placeholders', async () => {
    const q = devRows().slice(0, 10).map((r) => `${r.src.replace(/\.$/, '')} {{user_name}}.`);
    const out = await translate(q, { keepSpans: false });
    expect(out.filter((o) => o.includes('{{user_name}}')).length).toBeLessThan(10);
  });
});
