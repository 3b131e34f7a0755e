// Hostile documents against a real server, its limits made small so the files stay small: each is refused with a
// 4xx naming the problem (or accepted and handled), never a 5xx, while GET /health, probed every 50 ms, keeps
// answering within a second: documents are read on worker threads. A worker that runs out of memory fails only
// its own request, with the error naming DRAGOMAN_DOCUMENT_WORKER_MEMORY_MB; a key with no quota left is refused
// before its file is read; a zip with an entry name twice is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { docxOf, docxPadded, docxTwice, srtOf, xliffOneLine, xlsxStrings } from './hostile-files.ts';
import { upload } from './jobs-client.ts';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({
    DRAGOMAN_MAX_DOCUMENT_UNITS: '5000',
    DRAGOMAN_DOCUMENT_WORKERS: '1',
    DRAGOMAN_DOCUMENT_WORKER_MEMORY_MB: '64',
  });
  key = (await t.key({ rpm: null })).secret;
});

afterAll(async () => {
  await t?.close();
});

/** GET /health every 50 ms while `work` runs: the slowest answer (a probe still waiting counts as long as it waited). */
async function healthWhile<T>(work: () => Promise<T>): Promise<{ result: T; slowest: number }> {
  let running = true;
  let slowest = 0;
  let waitingSince: number | undefined;
  const prober = (async () => {
    while (running) {
      const t0 = (waitingSince = performance.now());
      const res = await fetch(`${t.url}/health`);
      await res.text();
      waitingSince = undefined;
      expect(res.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const result = await work();
  running = false;
  if (waitingSince !== undefined) slowest = Math.max(slowest, performance.now() - waitingSince);
  await prober;
  return { result, slowest };
}

describe('documents: hostile files', () => {
  it('each is refused with a 400 naming its problem, or accepted, and /health answers within a second throughout', async () => {
    const cases: { name: string; file: () => Promise<Uint8Array> | string; status: number; message?: RegExp }[] = [
      // Units on one line, none with a target: read in linear time; past the units limit, refused as they are read.
      { name: 'one-line.xlf', file: () => xliffOneLine(20_000), status: 400, message: /more than 5000 pieces of text .* the maximum is 5000 \(DRAGOMAN_MAX_DOCUMENT_UNITS\)/ },
      { name: 'small-one-line.xlf', file: () => xliffOneLine(1_500), status: 202 },
      // A million-string sheet's little brother: its tags are counted before its shared strings are parsed.
      { name: 'strings.xlsx', file: () => xlsxStrings(40_000), status: 400, message: /XLSX file's XML has more than 60000 tags .*DRAGOMAN_MAX_DOCUMENT_UNITS/ },
      // Many entries each too small for their own ratio to be checked, together a bomb.
      { name: 'padded.docx', file: () => docxPadded(300, 60_000), status: 400, message: /unpacks to 18000\d+ bytes from \d+, more than 200 to 1/ },
      { name: 'paragraphs.docx', file: () => docxOf(5_500), status: 400, message: /5500 pieces of text/ },
      { name: 'runs.docx', file: () => docxOf(50, 100), status: 202 },
      { name: 'cues.srt', file: () => srtOf(20_000), status: 400, message: /more than 5000 pieces of text/ },
    ];
    for (const c of cases) {
      const bytes = await c.file();
      const { result: up, slowest } = await healthWhile(() => upload(t.url, key, c.name, bytes));
      expect(up.status, `${c.name}: ${JSON.stringify(up.body)}`).toBe(c.status);
      if (c.message) expect(up.body.error.message, c.name).toMatch(c.message);
      expect(slowest, `${c.name}: slowest /health ${slowest.toFixed(0)} ms`).toBeLessThan(1000);
      // The accepted one is not translated here (its thousands of units would keep the engine busy).
      if (up.status === 202) expect((await t.call('DELETE', `/v1/documents/${up.body.data.document.id}`, { key })).status).toBe(204);
    }
  });

  it('a file that needs more memory than DRAGOMAN_DOCUMENT_WORKER_MEMORY_MB: 413 naming it, and the server goes on', async () => {
    // 400,000 empty elements and one sentence: within every size limit, but its tree is far more than 64 MB.
    const html = `<html><body>${'<i></i>'.repeat(400_000)}<p>The house is small.</p></body></html>`;
    const { result: up, slowest } = await healthWhile(() => upload(t.url, key, 'deep.html', html));
    expect(up.status, JSON.stringify(up.body)).toBe(413);
    expect(up.body.error).toEqual({
      code: 413,
      type: 'invalid_request',
      message: expect.stringMatching(/needs more memory than 64 MB \(DRAGOMAN_DOCUMENT_WORKER_MEMORY_MB\)/),
    });
    expect(slowest).toBeLessThan(1000);
    // A new worker takes the next document.
    const next = await upload(t.url, key, 'notes.txt', 'The house is small.');
    expect(next.status, JSON.stringify(next.body)).toBe(202);
    expect((await t.call('GET', '/health')).status).toBe(200);
  });

  it('a DOCX with word/document.xml twice: 400 naming the entry', async () => {
    const up = await upload(t.url, key, 'twice.docx', await docxTwice());
    expect(up.status).toBe(400);
    expect(up.body.error.message).toMatch(/two zip entries named "word\/document\.xml"/);
  });

  it('a key with no characters left: 403 before its file is read (a file that would be a 400 once read)', async () => {
    const spent = await t.key({ plan: 'free', monthlyChars: 0, rpm: null });
    const up = await upload(t.url, spent.secret, 'twice.docx', await docxTwice());
    expect(up.status, JSON.stringify(up.body)).toBe(403);
    expect(up.body.error).toEqual({ code: 403, type: 'quota_exceeded', message: expect.stringMatching(/^Monthly character quota exceeded: nothing of this request was read: only 0 of the 0 characters/) });
    // The same file from a key with characters left is read, and refused for what it is.
    expect((await upload(t.url, key, 'twice.docx', await docxTwice())).status).toBe(400);
  });
});
