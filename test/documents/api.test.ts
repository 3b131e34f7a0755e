// POST /v1/documents on a real server (fixture models, SQLite): every text format comes back with each unit
// translated exactly as /v1/translate (format=html) translates it and every other byte kept; jobs belong to
// their key; a document over the quota is refused with nothing charged; hostile XML is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/documents/formats/index.ts';
import { configuredJobStore } from '../stores.ts';
import { isWellFormed } from '../../src/documents/formats/xml-scan.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { download, upload, waitForJob } from './jobs-client.ts';
import { SAMPLES } from './samples.ts';
import { makeScannedPdf } from './pdf-fixtures.ts';

let t: TestApp;
let key: { id: string; secret: string };
const LIMITS = { maxCharacters: 1e6, maxUnits: 1e6, maxUncompressedBytes: 1e8, maxZipEntries: 1e4, maxCompressionRatio: 200 };

beforeAll(async () => {
  t = await startTestApp();
  // Many uploads and polls in a minute: no request limit.
  key = await t.key({ rpm: null });
});

afterAll(async () => {
  await t?.close();
});

async function usedChars(keyId: string): Promise<number> {
  return (await t.app.store.usage(keyId, new Date(t.clock.now()).toISOString().slice(0, 7))).chars;
}

describe('documents: text formats through the API', () => {
  for (const sample of SAMPLES) {
    it(`${sample.name}: units translated as /v1/translate translates them, the rest kept`, async () => {
      const before = await usedChars(key.id);
      const up = await upload(t.url, key.secret, sample.name, sample.text);
      expect(up.status, JSON.stringify(up.body)).toBe(202);
      const accepted = up.body.data.document;
      expect(accepted).toMatchObject({ status: expect.stringMatching(/queued|translating|done/), filename: sample.name, source: 'en', target: 'de' });
      expect(accepted.characters).toBeGreaterThan(0);
      expect(await usedChars(key.id)).toBe(before + accepted.characters);

      const done = await waitForJob(t.url, key.secret, accepted.id);
      expect(done.status, JSON.stringify(done)).toBe('done');
      expect(done.progress).toBe(1);
      const result = await download(t.url, key.secret, accepted.id);
      expect(result.status).toBe(200);
      const format = detectFormat(Buffer.from(sample.text), sample.name);
      expect(result.headers.get('content-type')).toContain(format.mediaType.split(';')[0]);
      const stem = sample.name.slice(0, sample.name.lastIndexOf('.'));
      expect(result.headers.get('content-disposition')).toContain(`attachment; filename="${stem}.de.${format.extension}"`);

      // The expected file: the format's own writer fed with /v1/translate's answers for each unit.
      const doc = await format.open(Buffer.from(sample.text), LIMITS);
      const tr = await t.call('POST', '/v1/translate', { key: key.secret, body: { q: doc.units.map((u) => u.html), source: 'en', target: 'de', format: 'html' } });
      expect(tr.status).toBe(200);
      const translations = tr.body.data.translations.map((x: { translatedText: string }) => x.translatedText);
      const expected = Buffer.from(await doc.write(translations, 'de'));
      expect(result.bytes.toString()).toBe(expected.toString());
      // Something was translated (the fixture model changes English text) and the kept parts are there as they were.
      expect(result.bytes.toString()).not.toBe(sample.text);
      for (const kept of sample.kept) expect(result.bytes.toString(), kept).toContain(kept);
      if (['xliff', 'xhtml'].includes(format.id)) expect(isWellFormed(result.bytes.toString(), format.id === 'xhtml')).toBe(true);
    });
  }

  it('language tags are set to the target', async () => {
    const cases: [string, RegExp][] = [['page.html', /<html lang="de">/], ['page.xhtml', /xml:lang="de" lang="de"/], ['strings.xlf', /target-language="de"/], ['strings2.xlf', /trgLang="de"/], ['app.po', /"Language: de\\n"/]];
    for (const [name, re] of cases) {
      const sample = SAMPLES.find((s) => s.name === name)!;
      const up = await upload(t.url, key.secret, name, sample.text);
      await waitForJob(t.url, key.secret, up.body.data.document.id);
      expect((await download(t.url, key.secret, up.body.data.document.id)).bytes.toString(), name).toMatch(re);
    }
  });

  it('without source the language is detected from the text', async () => {
    const up = await upload(t.url, key.secret, 'notes.txt', SAMPLES[0]!.text, { target: 'de' });
    expect(up.status).toBe(202);
    expect(up.body.data.document.detectedSourceLanguage).toBe('en');
    expect(up.body.data.document.source).toBeUndefined();
    expect((await waitForJob(t.url, key.secret, up.body.data.document.id)).status).toBe('done');
  });
});

describe('documents: jobs, keys and quota', () => {
  it('another key gets 404 for status, result and delete; DELETE removes the job and its files', async () => {
    const other = await t.key();
    const up = await upload(t.url, key.secret, 'notes.txt', SAMPLES[0]!.text);
    const id = up.body.data.document.id as string;
    await waitForJob(t.url, key.secret, id);
    for (const [method, path] of [['GET', `/v1/documents/${id}`], ['GET', `/v1/documents/${id}/result`], ['DELETE', `/v1/documents/${id}`]]) {
      const r = await t.call(method!, path!, { key: other.secret });
      expect(r.status, path).toBe(404);
      expect(r.body.error.type).toBe('invalid_request');
    }
    const del = await t.call('DELETE', `/v1/documents/${id}`, { key: key.secret });
    expect(del.status).toBe(204);
    expect((await t.call('GET', `/v1/documents/${id}`, { key: key.secret })).status).toBe(404);
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${t.dataDir}/documents/${id}`)).toBe(false);
  });

  it('over quota: 403 quota_exceeded, nothing charged, no job', async () => {
    const small = await t.key({ plan: 'free', monthlyChars: 10 });
    const { readdirSync } = await import('node:fs');
    const folders = readdirSync(`${t.dataDir}/documents`).sort();
    const up = await upload(t.url, small.secret, 'notes.txt', SAMPLES[0]!.text);
    expect(up.status).toBe(403);
    expect(up.body.error).toEqual({ code: 403, type: 'quota_exceeded', message: expect.stringMatching(/quota exceeded: this request has at least \d+ characters but only 10 of the 10/) });
    expect(await usedChars(small.id)).toBe(0);
    // No folder, no record: the job store has nothing of this key.
    expect(readdirSync(`${t.dataDir}/documents`).sort()).toEqual(folders);
    const store = await configuredJobStore(t.app.server.dragoman.config);
    try {
      expect(await store.orphans(Number.MAX_SAFE_INTEGER).then((jobs) => jobs.filter((j) => j.keyId === small.id))).toEqual([]);
      expect(await store.expired(Number.MAX_SAFE_INTEGER).then((jobs) => jobs.filter((j) => j.keyId === small.id))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('a document asking for a translation memory the key does not have: 404 that names it, nothing charged', async () => {
    const k = await t.key();
    const up = await upload(t.url, k.secret, 'notes.txt', SAMPLES[0]!.text, { target: 'de', source: 'en', memory: 'tm_any' });
    expect(up.status).toBe(404);
    expect(up.body.error).toEqual({ code: 404, type: 'invalid_request', message: "Translation memory 'tm_any' not found." });
    expect(await usedChars(k.id)).toBe(0);
  });

  it('DELETE while the job is translating: 204, it stops, its files do not come back', async () => {
    const big = Array.from({ length: 400 }, (_x, i) => `The garden number ${i} is big and the house is small.`).join('\n\n');
    const up = await upload(t.url, key.secret, 'big.txt', big);
    const id = up.body.data.document.id as string;
    expect((await t.call('DELETE', `/v1/documents/${id}`, { key: key.secret })).status).toBe(204);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await t.call('GET', `/v1/documents/${id}`, { key: key.secret })).status).toBe(404);
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${t.dataDir}/documents/${id}`)).toBe(false);
  });

  it('the result of a job not done yet is 409', async () => {
    const big = Array.from({ length: 300 }, (_x, i) => `The house number ${i} is small and the garden is big.`).join('\n\n');
    const up = await upload(t.url, key.secret, 'big.txt', big);
    const r = await t.call('GET', `/v1/documents/${up.body.data.document.id}/result`, { key: key.secret });
    expect(r.status).toBe(409);
    expect(r.body.error.type).toBe('invalid_request');
    await waitForJob(t.url, key.secret, up.body.data.document.id);
  });
});

describe('documents: bad and hostile files are 4xx with a message', () => {
  const cases: [string, string | Uint8Array, RegExp][] = [
    ['x.xlf', '<?xml version="1.0"?><!DOCTYPE xliff [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><xliff version="1.2"><file><body><trans-unit id="1"><source>&xxe;</source></trans-unit></body></file></xliff>', /DOCTYPE/],
    ['bomb.xlf', '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><xliff version="1.2"><file><body><trans-unit id="1"><source>&lol2;</source></trans-unit></body></file></xliff>', /DOCTYPE/],
    ['broken.xlf', '<?xml version="1.0"?><xliff version="1.2"><file><body><trans-unit id="1"><source>Hi</trans-unit></body></file></xliff>', /not well-formed/],
    ['a.pdf', '%PDF-1.7\n1 0 obj\n', /PDF's cross-reference table is broken/],
    ['a.png', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]), /PNG image.*Supported formats/],
    ['a.doc', Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]), /old binary Office format/],
    ['a.docx', Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(100), Buffer.from('EncryptionInfo', 'utf16le')]), /encrypted \(password-protected\)/],
    ['a.bin', Uint8Array.from([0, 1, 2, 3, 0, 255, 254, 0]), /not a supported format/],
    ['empty.txt', '', /empty/],
  ];
  for (const [name, bytes, message] of cases) {
    it(name, async () => {
      const before = await usedChars(key.id);
      const up = await upload(t.url, key.secret, name, bytes);
      expect(up.status, JSON.stringify(up.body)).toBe(400);
      expect(up.body.error).toEqual({ code: 400, type: 'invalid_request', message: expect.stringMatching(message) });
      expect(await usedChars(key.id)).toBe(before);
    });
  }

  it('a scanned PDF (an image-only page): the named 400, nothing charged', async () => {
    const before = await usedChars(key.id);
    const up = await upload(t.url, key.secret, 'scan.pdf', await makeScannedPdf());
    expect(up.status, JSON.stringify(up.body)).toBe(400);
    expect(up.body.error).toEqual({ code: 400, type: 'invalid_request', message: expect.stringMatching(/PDF has no text layer/) });
    expect(await usedChars(key.id)).toBe(before);
  }, 60_000);

  it('missing file or target', async () => {
    const form = new FormData();
    form.set('target', 'de');
    const r = await fetch(`${t.url}/v1/documents`, { method: 'POST', body: form, headers: { 'x-api-key': key.secret } });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error.message).toMatch(/'file'/);
    const noTarget = await upload(t.url, key.secret, 'a.txt', 'The house.', {});
    expect(noTarget.status).toBe(400);
    expect(noTarget.body.error.message).toMatch(/'target'/);
  });
});
