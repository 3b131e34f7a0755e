// Limits and damaged files on a real server: the character limit per document, expiry after DRAGOMAN_DOCUMENT_TTL
// (record and files deleted), and a fuzz run — random truncations and byte flips of every sample — where every
// answer is a 4xx with the error body or a job that ends with a valid document, never a 500.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/documents/formats/index.ts';
import { isWellFormed } from '../../src/documents/formats/xml-scan.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { download, upload, waitForJob } from './jobs-client.ts';
import { SAMPLES } from './samples.ts';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ DRAGOMAN_MAX_DOCUMENT_CHARS: '2000', DRAGOMAN_DOCUMENT_TTL: '1h', DRAGOMAN_MAX_DOCUMENT_BYTES: '100000' });
  // Over a hundred uploads and their polls in a minute or two: no request limit.
  key = (await t.key({ rpm: null })).secret;
});

afterAll(async () => {
  await t?.close();
});

describe('documents: limits', () => {
  it('more characters than DRAGOMAN_MAX_DOCUMENT_CHARS: 400 naming the count and the limit', async () => {
    const text = Array.from({ length: 60 }, () => 'The house is small and the garden is big.').join('\n\n');
    const up = await upload(t.url, key, 'long.txt', text);
    expect(up.status).toBe(400);
    expect(up.body.error.message).toMatch(/has more than 2000 characters of text, the maximum is 2000 per document \(DRAGOMAN_MAX_DOCUMENT_CHARS\)/);
  });

  it('a file over DRAGOMAN_MAX_DOCUMENT_BYTES: 413 naming the limit, also when the body is far larger; nothing charged', async () => {
    const before = await t.call('GET', '/v1/usage', { key });
    for (const size of [100_001, 1_300_000]) {
      const up = await upload(t.url, key, 'big.txt', 'a'.repeat(size));
      expect(up.status, String(size)).toBe(413);
      expect(up.body.error).toEqual({ code: 413, type: 'invalid_request', message: expect.stringMatching(/at most 100000 bytes \(DRAGOMAN_MAX_DOCUMENT_BYTES\)|the maximum is 100000 \(DRAGOMAN_MAX_DOCUMENT_BYTES\)/) });
    }
    expect((await t.call('GET', '/v1/usage', { key })).body.data.charactersUsed).toBe(before.body.data.charactersUsed);
  });

  it('after DRAGOMAN_DOCUMENT_TTL the job answers 404 and its files are deleted', async () => {
    const up = await upload(t.url, key, 'notes.txt', SAMPLES[0]!.text);
    const id = up.body.data.document.id as string;
    const doc = await waitForJob(t.url, key, id);
    expect(Date.parse(doc.expiresAt) - Date.parse(doc.createdAt)).toBe(3_600_000);
    expect(existsSync(`${t.dataDir}/documents/${id}/result`)).toBe(true);
    t.clock.advance(3_600_001);
    expect((await t.call('GET', `/v1/documents/${id}`, { key })).status).toBe(404);
    // The sweep (every few seconds) deletes the files.
    for (let n = 0; existsSync(`${t.dataDir}/documents/${id}`); n++) {
      expect(n).toBeLessThan(200);
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});

/** xorshift32: the same mutations on every run. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('documents: fuzz', () => {
  it('truncated and byte-flipped samples of every format: 4xx or a valid document, never a 500', async () => {
    const next = random(0x5eed);
    const byStatus: Record<string, number> = {};
    let tried = 0;
    for (const sample of SAMPLES) {
      const original = Buffer.from(sample.text);
      for (let k = 0; k < 12; k++) {
        const bytes = Buffer.from(original);
        let mutated: Buffer;
        if (k % 2 === 0) mutated = bytes.subarray(0, Math.floor(next() * bytes.length));
        else {
          for (let f = 0; f < 1 + Math.floor(next() * 4); f++) bytes[Math.floor(next() * bytes.length)] = Math.floor(next() * 256);
          mutated = bytes;
        }
        tried++;
        const up = await upload(t.url, key, sample.name, mutated);
        let outcome = String(up.status);
        if (up.status === 202) {
          const done = await waitForJob(t.url, key, up.body.data.document.id);
          outcome = `202 ${done.status}`;
          expect(done.status, `${sample.name} #${k}: ${JSON.stringify(done)}`).toBe('done');
          const result = await download(t.url, key, up.body.data.document.id);
          expect(result.status).toBe(200);
          if (['xliff', 'xhtml'].includes(done.format)) expect(isWellFormed(result.bytes.toString(), done.format === 'xhtml'), `${sample.name} #${k}: ${JSON.stringify(mutated.toString())} → ${JSON.stringify(result.bytes.toString())}`).toBe(true);
          // The result is the same format again.
          expect(detectFormat(result.bytes, sample.name).id, `${sample.name} #${k}: ${JSON.stringify(mutated.toString())} → ${JSON.stringify(result.bytes.toString())}`).toBe(done.format);
        } else {
          expect(up.status, `${sample.name} #${k}: ${JSON.stringify(up.body)}`).toBeGreaterThanOrEqual(400);
          expect(up.status).toBeLessThan(500);
          expect(up.body.error).toEqual({ code: up.status, type: 'invalid_request', message: expect.any(String) });
        }
        byStatus[outcome] = (byStatus[outcome] ?? 0) + 1;
      }
    }
    // The figures for the documentation: how many files were tried and how they were answered.
    console.log(JSON.stringify({ fuzz: { tried, byStatus } }));
    expect(tried).toBe(SAMPLES.length * 12);
    expect((await t.call('GET', '/v1/languages', { key })).status).toBe(200); // still serving
  }, 300_000);
});
