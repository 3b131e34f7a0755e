// POST /v1/documents with a glossary, on a real server: a DOCX paragraph holding a term comes back with the
// glossary's target term (and without the glossary it does not); each paragraph equals what /v1/translate gives
// with the same glossary; the glossary is refused as /v1/translate refuses it (unknown, another key's, another
// pair); a job taken over by a restarted server still applies the glossary its record names.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/accounts/accounts.ts';
import { ManualClock } from '../../src/accounts/clock.ts';
import { startApp } from '../../src/app.ts';
import { SqliteJobStore } from '../../src/documents/sqlite-store.ts';
import { call, fixtureConfig, startTestApp, type TestApp } from '../api/helpers.ts';
import { docxOf, docxParagraphs } from './docx-text.ts';
import { download, upload, waitForJob } from './jobs-client.ts';
import { configuredJobStore, sqliteJobStore } from '../stores.ts';

// "house" → "Vertrag": a target the fixture model never produces for this sentence on its own.
const TERM_SENTENCE = 'The house is small.';
const PLAIN_SENTENCE = 'A man is riding a bicycle.';
const ENTRIES = [{ source: 'house', target: 'Vertrag' }];

let t: TestApp;
let key: { id: string; secret: string };
let glossaryId: string;

async function makeGlossary(url: string, secret: string, source = 'en', target = 'de'): Promise<string> {
  const r = await call(url, 'POST', '/v1/glossaries', { key: secret, body: { name: 'terms', source, target, entries: ENTRIES } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.glossary.id as string;
}

async function translated(url: string, secret: string, bytes: Uint8Array, fields: Record<string, string>): Promise<string[]> {
  const up = await upload(url, secret, 'terms.docx', bytes, fields);
  expect(up.status, JSON.stringify(up.body)).toBe(202);
  const done = await waitForJob(url, secret, up.body.data.document.id);
  expect(done.status, JSON.stringify(done)).toBe('done');
  const result = await download(url, secret, up.body.data.document.id);
  expect(result.status).toBe(200);
  return docxParagraphs(result.bytes);
}

beforeAll(async () => {
  t = await startTestApp();
  key = await t.key({ rpm: null });
  glossaryId = await makeGlossary(t.url, key.secret);
});

afterAll(async () => {
  await t?.close();
});

describe('documents with a glossary', () => {
  it("a paragraph holding a term comes back with the glossary's target term, each paragraph as /v1/translate gives it", async () => {
    const docx = await docxOf([TERM_SENTENCE, PLAIN_SENTENCE]);
    const up = await upload(t.url, key.secret, 'terms.docx', docx, { source: 'en', target: 'de', glossary: glossaryId });
    expect(up.status, JSON.stringify(up.body)).toBe(202);
    expect(up.body.data.document.glossary).toBe(glossaryId);
    await waitForJob(t.url, key.secret, up.body.data.document.id);
    const withGlossary = await docxParagraphs((await download(t.url, key.secret, up.body.data.document.id)).bytes);
    const without = await translated(t.url, key.secret, docx, { source: 'en', target: 'de' });

    expect(withGlossary[0]).toContain('Vertrag');
    expect(without[0]).not.toContain('Vertrag');
    // The sentence without a term is translated exactly as without the glossary.
    expect(withGlossary[1]).toBe(without[1]);
    const tr = await call(t.url, 'POST', '/v1/translate', { key: key.secret, body: { q: [TERM_SENTENCE, PLAIN_SENTENCE], source: 'en', target: 'de', glossary: glossaryId } });
    expect(withGlossary).toEqual(tr.body.data.translations.map((x: { translatedText: string }) => x.translatedText));
  });

  it('a detected source is checked against the glossary like a given one', async () => {
    const docx = await docxOf([TERM_SENTENCE, 'The weather is very nice today and we are going to the park.']);
    const paragraphs = await translated(t.url, key.secret, docx, { target: 'de', glossary: glossaryId });
    expect(paragraphs[0]).toContain('Vertrag');
  });

  it('is refused as /v1/translate refuses it: unknown, another key\'s, another pair; nothing is charged', async () => {
    const docx = await docxOf([TERM_SENTENCE]);
    const other = await t.key({ rpm: null });
    const reversed = await makeGlossary(t.url, key.secret, 'de', 'en');
    const usedBefore = (await call(t.url, 'GET', '/v1/usage', { key: key.secret })).body.data.charactersUsed;
    const cases: [string, string][] = [
      [key.secret, '00000000-0000-0000-0000-000000000000'],
      [other.secret, glossaryId],
      [key.secret, reversed],
    ];
    for (const [secret, id] of cases) {
      const doc = await upload(t.url, secret, 'terms.docx', docx, { source: 'en', target: 'de', glossary: id });
      const text = await call(t.url, 'POST', '/v1/translate', { key: secret, body: { q: TERM_SENTENCE, source: 'en', target: 'de', glossary: id } });
      expect(doc.status, JSON.stringify(doc.body)).toBe(text.status);
      expect(doc.status).toBeGreaterThanOrEqual(400);
      expect(doc.body).toEqual(text.body);
    }
    expect((await call(t.url, 'GET', '/v1/usage', { key: key.secret })).body.data.charactersUsed).toBe(usedBefore);
  });
});

describe('a job taken over after a restart', () => {
  it('still applies the glossary its record names', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dragoman-doc-glossary-'));
    const clock = new ManualClock();
    try {
      // Server A accepts a job with a glossary; its record (written by the job engine) is copied as a job that A
      // left unfinished: queued, no lease, the same source file.
      const a = await startApp(fixtureConfig(dataDir), { logger: false, clock });
      const { secret } = await new Accounts(a.store, clock).createKey({ plan: 'pro', rpm: null });
      const id = await makeGlossary(a.url, secret);
      const up = await upload(a.url, secret, 'terms.docx', await docxOf([TERM_SENTENCE]), { source: 'en', target: 'de', glossary: id });
      expect(up.status, JSON.stringify(up.body)).toBe(202);
      await waitForJob(a.url, secret, up.body.data.document.id);
      await a.close();

      const store = await configuredJobStore({ dataDir, databaseUrl: undefined });
      const record = (await store.get(up.body.data.document.id))!;
      expect(record.glossary).toBe(id);
      const orphan = { ...record, id: 'f'.repeat(32), status: 'queued' as const, progress: 0, leaseUntil: 0 };
      await store.insert(orphan);
      await store.close();
      mkdirSync(join(dataDir, 'documents', orphan.id));
      copyFileSync(join(dataDir, 'documents', record.id, 'source'), join(dataDir, 'documents', orphan.id, 'source'));

      // Server B, on the same data, takes the job over and translates it with the glossary.
      const b = await startApp(fixtureConfig(dataDir), { logger: false, clock });
      try {
        const done = await waitForJob(b.url, secret, orphan.id);
        expect(done.status, JSON.stringify(done)).toBe('done');
        const paragraphs = await docxParagraphs((await download(b.url, secret, orphan.id)).bytes);
        expect(paragraphs[0]).toContain('Vertrag');
      } finally {
        await b.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a job database made before jobs carried a glossary', () => {
  it('gains the column and keeps its jobs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dragoman-doc-columns-'));
    const file = join(dir, 'dragoman.db');
    try {
      const old = new Database(file);
      old.exec(`CREATE TABLE document_jobs (id TEXT PRIMARY KEY, key_id TEXT NOT NULL, status TEXT NOT NULL, filename TEXT NOT NULL,
        format TEXT NOT NULL, source TEXT, detected_source TEXT, target TEXT NOT NULL, characters INTEGER NOT NULL,
        progress REAL NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, error TEXT,
        charge_state TEXT NOT NULL, charge TEXT NOT NULL, lease_until INTEGER NOT NULL DEFAULT 0)`);
      old.prepare(`INSERT INTO document_jobs VALUES (?, 'k', 'done', 'a.txt', 'txt', 'en', NULL, 'de', 5, 1, 0, 9, NULL, 'charged', '{}', 0)`).run('a'.repeat(32));
      old.close();
      const store = sqliteJobStore(file);
      const kept = (await store.get('a'.repeat(32)))!;
      expect(kept).toMatchObject({ status: 'done', characters: 5, glossary: undefined });
      await store.insert({ ...kept, id: 'b'.repeat(32), glossary: 'g-1' });
      expect((await store.get('b'.repeat(32)))!.glossary).toBe('g-1');
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
