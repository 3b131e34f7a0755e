// The bytes a key's documents keep, on a real server: capped per plan (DRAGOMAN_STORAGE_BYTES_<PLAN>) on every
// document surface (/v1/documents, which the web page uses too; DeepL's /v2/document through deepl-node;
// LibreTranslate's translate_file), shown in /v1/usage, and freed when a job is deleted or expires. A refusal costs
// no characters and leaves no file.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as deepl from 'deepl-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeZip } from '../../src/documents/formats/zip.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { docxOf } from './docx-text.ts';
import { upload, waitForJob } from './jobs-client.ts';
import { unzip } from './zip-helpers.ts';

let t: TestApp;
let dir: string;

beforeAll(async () => {
  // The free plan keeps its default (100 MB, beside the default 30 MB upload limit); the basic plan a little, so
  // that small files show every surface's refusal.
  t = await startTestApp({ DRAGOMAN_STORAGE_BYTES_BASIC: '3000', DRAGOMAN_DOCUMENT_TTL: '1h' });
  dir = mkdtempSync(join(tmpdir(), 'dragoman-storage-'));
});

afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A DOCX of `text` (made by npm's docx) carrying `filler` bytes of random media: large on disk, little to translate. */
async function heavyDocx(text: string, filler: number): Promise<Uint8Array> {
  const entries = await unzip(await docxOf([text]));
  const mtime = new Date(Date.UTC(2024, 0, 1));
  return writeZip([
    ...entries.map((e) => ({ name: e.name, data: e.data, compressed: true, mtime })),
    { name: 'word/media/filler.bin', data: randomBytes(filler), compressed: false, mtime },
  ]);
}

async function usage(key: string): Promise<{ storageBytesUsed: number; storageBytesLimit: number | null; charactersUsed: number }> {
  const r = await t.call('GET', '/v1/usage', { key });
  expect(r.status).toBe(200);
  return r.body.data;
}

/** Bytes of a job's files on disk. */
function onDisk(id: string): number {
  const folder = join(t.dataDir, 'documents', id);
  return readdirSync(folder).reduce((n, f) => n + statSync(join(folder, f)).size, 0);
}

const STORAGE_REFUSAL = /^Storage limit reached: the (free|basic) plan keeps at most \d+ bytes .* of documents per key \(DRAGOMAN_STORAGE_BYTES_(FREE|BASIC)\)/;

describe('stored bytes per key', () => {
  it('a free key cannot keep five 29 MB DOCX of 8 characters each: the second is 413 naming the storage limit', async () => {
    const key = (await t.key({ plan: 'free', rpm: null })).secret;
    const docx = await heavyDocx('The cat.', 29 * 1024 * 1024);
    expect(docx.length).toBeLessThanOrEqual(30 * 1024 * 1024); // under the default DRAGOMAN_MAX_DOCUMENT_BYTES
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await upload(t.url, key, `big${i}.docx`, docx));
    expect(answers.map((a) => a.status)).toEqual([202, 413, 413, 413, 413]);
    for (const refused of answers.slice(1)) {
      expect(refused.body.error).toEqual({ code: 413, type: 'invalid_request', message: expect.stringMatching(STORAGE_REFUSAL) });
      expect(refused.body.error.message).toContain('at most 100000000 bytes');
    }
    const id = answers[0]!.body.data.document.id as string;
    expect(answers[0]!.body.data.document.characters).toBe(8);
    // Only the accepted one is charged, and only its files are on disk.
    expect((await usage(key)).charactersUsed).toBe(8);
    expect(readdirSync(join(t.dataDir, 'documents'))).toEqual([id]);

    const doc = await waitForJob(t.url, key, id);
    expect(doc.status).toBe('done');
    // Once translated, the job counts what it keeps: its upload and its result, as on disk.
    expect(await usage(key)).toMatchObject({ storageBytesUsed: onDisk(id), storageBytesLimit: 100_000_000 });
    expect(onDisk(id)).toBeGreaterThan(2 * 29 * 1024 * 1024);

    // Deleting the job frees its bytes: the next upload is accepted.
    expect((await t.call('DELETE', `/v1/documents/${id}`, { key })).status).toBe(204);
    expect((await usage(key)).storageBytesUsed).toBe(0);
    const again = await upload(t.url, key, 'again.docx', docx);
    expect(again.status).toBe(202);
    await waitForJob(t.url, key, again.body.data.document.id);
  });

  it('every document surface refuses with the storage limit named, and expiry frees the bytes', async () => {
    const key = await t.key({ plan: 'basic', rpm: null });
    const text = 'The house is small. '.repeat(50); // 1000 bytes: 2000 counted until its result is written
    const first = await upload(t.url, key.secret, 'first.txt', text);
    expect(first.status).toBe(202);
    const firstId = first.body.data.document.id as string;
    await waitForJob(t.url, key.secret, firstId);
    const kept = await usage(key.secret);
    expect(kept).toMatchObject({ storageBytesUsed: onDisk(firstId), storageBytesLimit: 3000 });
    const charged = kept.charactersUsed;
    const folders = readdirSync(join(t.dataDir, 'documents')).sort();

    // /v1/documents (the web page's upload too).
    const v1 = await upload(t.url, key.secret, 'second.txt', text);
    expect(v1.status).toBe(413);
    expect(v1.body.error.message).toMatch(STORAGE_REFUSAL);
    expect(v1.body.error.message).toContain(`This key's documents keep ${onDisk(firstId)} bytes`);

    // DeepL's /v2/document, through the official client.
    const client = new deepl.DeepLClient(key.secret, { serverUrl: t.url, maxRetries: 0, sendPlatformInfo: false });
    const input = join(dir, 'second.txt');
    writeFileSync(input, text);
    const refused = await client.uploadDocument(input, 'en', 'de').then(() => undefined, (err: unknown) => err as Error);
    expect(refused).toBeInstanceOf(deepl.DeepLError);
    expect(refused!.message).toMatch(/Storage limit reached: the basic plan keeps at most 3000 bytes/);

    // LibreTranslate's translate_file.
    const form = new FormData();
    form.set('file', new Blob([Buffer.from(text)]), 'second.txt');
    form.set('source', 'en');
    form.set('target', 'de');
    form.set('api_key', key.secret);
    const libre = await fetch(`${t.url}/libretranslate/translate_file`, { method: 'POST', body: form });
    expect(libre.status).toBe(413);
    expect(((await libre.json()) as { error: string }).error).toMatch(STORAGE_REFUSAL);

    // Nothing was charged, nothing more is kept.
    expect(await usage(key.secret)).toMatchObject({ charactersUsed: charged, storageBytesUsed: onDisk(firstId) });
    expect(readdirSync(join(t.dataDir, 'documents')).sort()).toEqual(folders);

    // Past DRAGOMAN_DOCUMENT_TTL the sweep deletes the job and its bytes are free.
    t.clock.advance(3_600_001);
    for (let n = 0; (await usage(key.secret)).storageBytesUsed !== 0; n++) {
      expect(n).toBeLessThan(200);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await upload(t.url, key.secret, 'third.txt', text)).status).toBe(202);
  });
});
