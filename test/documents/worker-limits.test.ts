// The document threads' time limit: a document that takes longer than DRAGOMAN_DOCUMENT_WORKER_TIMEOUT is refused
// with DocumentTooCostly (413) naming it, its thread is stopped, and the next document gets a new one.
import { afterAll, describe, expect, it } from 'vitest';
import { DocumentTooCostly, DocumentWorkers } from '../../src/documents/worker/pool.ts';
import { docxOf } from './hostile-files.ts';
import { LIMITS } from './zip-helpers.ts';

const workers = new DocumentWorkers({ documentWorkers: 1, documentWorkerMemoryMb: 256, documentWorkerTimeoutMs: 200 });

afterAll(async () => {
  await workers.close();
});

describe('document threads: time limit', () => {
  it('a document over the time limit: 413 naming DRAGOMAN_DOCUMENT_WORKER_TIMEOUT; the next document is read', async () => {
    // 20,000 paragraphs: over a second to read and plan, far more than 200 ms.
    const slow = workers.plan(await docxOf(20_000), 'long.docx', LIMITS, null);
    await expect(slow).rejects.toBeInstanceOf(DocumentTooCostly);
    await expect(slow).rejects.toMatchObject({ status: 413, message: expect.stringMatching(/took longer than 0.2 s to read \(DRAGOMAN_DOCUMENT_WORKER_TIMEOUT\)/) });
    const planned = await workers.plan(Buffer.from('The house is small.'), 'notes.txt', LIMITS, null);
    expect(planned).toMatchObject({ format: 'txt', characters: 19 });
  });
});
