// GET /v1/documents on a real server (fixture models, SQLite): the calling key's jobs, newest first, paged with a
// cursor, with the result's download name and the finishing time; never another key's; bad paging parameters are
// a 400 that says what to send. And the job series of /metrics: done, failed and their seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types.ts';
import { expectErrorShape, startTestApp, type TestApp } from '../api/helpers.ts';
import { download, upload, waitForJob } from './jobs-client.ts';

const TOKEN = 'history-metrics-token-0123456789';
const BOOM = 'Kaboom';
let t: TestApp;
let key: { id: string; secret: string };
let other: { id: string; secret: string };

beforeAll(async () => {
  t = await startTestApp({ DRAGOMAN_METRICS_TOKEN: TOKEN }, {
    // The real engine, made to fail on one word: a failed job for the metrics.
    wrapEngine: (engine: Engine): Engine =>
      Object.assign(Object.create(engine) as Engine, {
        translate: (segments: string[], ...rest: Parameters<Engine['translate']> extends [unknown, ...infer R] ? R : never) => {
          if (segments.some((s) => s.includes(BOOM))) return Promise.reject(new Error('simulated engine crash'));
          return engine.translate(segments, ...rest);
        },
      }),
  });
  key = await t.key({ rpm: null });
  other = await t.key({ rpm: null });
});

afterAll(async () => {
  await t?.close();
});

const list = (secret: string, query = '') => t.call('GET', `/v1/documents${query}`, { key: secret });

async function metric(series: string): Promise<number | undefined> {
  const text = await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /v1/documents', () => {
  const ids: string[] = [];

  it("lists the key's jobs newest first, with the result's name and when each finished", async () => {
    for (const name of ['report.txt', 'notes.md', 'page.html']) {
      const up = await upload(t.url, key.secret, name, name.endsWith('.html') ? '<p>Good morning.</p>' : 'Good morning.');
      expect(up.status, JSON.stringify(up.body)).toBe(202);
      ids.push(up.body.data.document.id);
      await waitForJob(t.url, key.secret, up.body.data.document.id);
      t.clock.advance(1000);
    }
    const r = await list(key.secret);
    expect(r.status).toBe(200);
    const docs = r.body.data.documents;
    expect(docs.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
    expect(r.body.data.nextCursor).toBeNull();
    const report = docs.find((d: { filename: string }) => d.filename === 'report.txt');
    expect(report).toMatchObject({ status: 'done', resultFilename: 'report.de.txt', source: 'en', target: 'de', format: 'txt' });
    expect(report.characters).toBe('Good morning.'.length);
    expect(Date.parse(report.createdAt)).toBeGreaterThan(0);
    expect(Date.parse(report.finishedAt)).toBeGreaterThanOrEqual(Date.parse(report.createdAt));
    // The name listed is the name the download carries.
    const result = await download(t.url, key.secret, report.id);
    expect(result.headers.get('content-disposition')).toContain(`filename="${report.resultFilename}"`);
    // The single job's read says the same.
    expect((await t.call('GET', `/v1/documents/${ids[0]}`, { key: key.secret })).body.data.document.resultFilename).toBe('report.de.txt');
  });

  it('pages with limit and the cursor of the previous page, without repeating or skipping a job', async () => {
    const first = await list(key.secret, '?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.documents).toHaveLength(2);
    const cursor = first.body.data.nextCursor;
    expect(typeof cursor).toBe('string');
    const second = await list(key.secret, `?limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(second.status).toBe(200);
    expect(second.body.data.nextCursor).toBeNull();
    const seen = [...first.body.data.documents, ...second.body.data.documents].map((d: { id: string }) => d.id);
    expect(seen).toEqual([...ids].reverse());
  });

  it("never lists another key's jobs, and a deleted job leaves the list", async () => {
    const mine = await upload(t.url, other.secret, 'other.txt', 'Good evening.');
    expect(mine.status).toBe(202);
    const theirs = (await list(other.secret)).body.data.documents.map((d: { id: string }) => d.id);
    expect(theirs).toEqual([mine.body.data.document.id]);
    const ours = (await list(key.secret)).body.data.documents.map((d: { id: string }) => d.id);
    expect(ours).not.toContain(mine.body.data.document.id);
    const del = await t.call('DELETE', `/v1/documents/${mine.body.data.document.id}`, { key: other.secret });
    expect(del.status, JSON.stringify(del.body)).toBe(204);
    expect((await list(other.secret)).body.data.documents).toEqual([]);
  });

  it('says what to send for a bad limit or cursor, and asks for a key', async () => {
    for (const q of ['?limit=0', '?limit=101', '?limit=ten', '?limit=1.5']) {
      expect(expectErrorShape(await list(key.secret, q), 400, 'invalid_request'), q).toMatch(/'limit' must be a whole number from 1 to 100/);
    }
    expect(expectErrorShape(await list(key.secret, '?cursor=abc'), 400, 'invalid_request')).toMatch(/'cursor' is not one this server gave/);
    expect(expectErrorShape(await list(key.secret, '?limit=1&limit=2'), 400, 'invalid_request')).toMatch(/'limit' must be a string/);
    expect((await t.call('GET', '/v1/documents')).status).toBe(401);
  });

  it('is in the /v1 OpenAPI document', async () => {
    const doc = (await t.call('GET', '/docs/json')).body;
    const op = doc.paths['/v1/documents']?.get;
    expect(op?.summary).toMatch(/documents, newest first/);
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['cursor', 'limit']);
    expect(Object.keys(op.responses['200'].content['application/json'].schema.properties.data.properties).sort()).toEqual(['documents', 'nextCursor']);
  });
});

describe('document job metrics', () => {
  it('counts jobs done and failed, with their seconds, and shows none running when idle', async () => {
    const doneBefore = (await metric('dragoman_document_jobs_finished_total{status="done"}')) ?? NaN;
    const failedBefore = (await metric('dragoman_document_jobs_finished_total{status="failed"}')) ?? NaN;
    const secondsBefore = (await metric('dragoman_document_job_seconds_count{status="done"}')) ?? 0;
    const ok = await upload(t.url, key.secret, 'fine.txt', 'Good night.');
    const bad = await upload(t.url, key.secret, 'fails.txt', `Good night. ${BOOM}.`);
    expect((await waitForJob(t.url, key.secret, ok.body.data.document.id)).status).toBe('done');
    expect((await waitForJob(t.url, key.secret, bad.body.data.document.id)).status).toBe('error');
    expect(await metric('dragoman_document_jobs_finished_total{status="done"}')).toBe(doneBefore + 1);
    expect(await metric('dragoman_document_jobs_finished_total{status="failed"}')).toBe(failedBefore + 1);
    expect(await metric('dragoman_document_job_seconds_count{status="done"}')).toBe(secondsBefore + 1);
    expect(await metric('dragoman_document_job_seconds_count{status="failed"}')).toBe(1);
    expect(await metric('dragoman_document_jobs{state="running"}')).toBe(0);
    expect(await metric('dragoman_document_jobs{state="queued"}')).toBe(0);
    // The failed one is listed as failed, with its reason and when it ended.
    const failed = (await list(key.secret)).body.data.documents.find((d: { id: string }) => d.id === bad.body.data.document.id);
    expect(failed).toMatchObject({ status: 'error', error: { message: expect.stringMatching(/failed on the server/) } });
    expect(typeof failed.finishedAt).toBe('string');
  });
});
