// A job whose translation fails on the server: status error with a message, the characters refunded exactly once,
// the result answering 409 with the reason, and the server still serving. The engine is the real one, made to
// fail on one word.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine/types.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { upload, waitForJob } from './jobs-client.ts';

const BOOM = 'Kaboom';
let t: TestApp;
let key: { id: string; secret: string };

beforeAll(async () => {
  t = await startTestApp({}, {
    wrapEngine: (engine: Engine): Engine =>
      Object.assign(Object.create(engine) as Engine, {
        translate: (segments: string[], ...rest: Parameters<Engine['translate']> extends [unknown, ...infer R] ? R : never) => {
          if (segments.some((s) => s.includes(BOOM))) return Promise.reject(new Error('simulated engine crash'));
          return engine.translate(segments, ...rest);
        },
      }),
  });
  key = await t.key();
});

afterAll(async () => {
  await t?.close();
});

const used = async () => (await t.app.store.usage(key.id, new Date(t.clock.now()).toISOString().slice(0, 7))).chars;

describe('documents: a job that fails', () => {
  it('is marked error, refunded once, and its result is a 409 with the reason', async () => {
    const text = Array.from({ length: 200 }, (_x, i) => `The house number ${i} is small.`).join('\n\n') + `\n\nThe ${BOOM} is loud.\n`;
    const up = await upload(t.url, key.secret, 'fails.txt', text);
    expect(up.status).toBe(202);
    const id = up.body.data.document.id as string;
    const done = await waitForJob(t.url, key.secret, id);
    expect(done.status).toBe('error');
    expect(done.error).toEqual({ message: expect.stringMatching(/failed on the server; the characters were refunded/) });
    expect(await used()).toBe(0);
    const r = await t.call('GET', `/v1/documents/${id}/result`, { key: key.secret });
    expect(r.status).toBe(409);
    expect(r.body.error.message).toMatch(/translation failed/);
    // The next document of the same key is charged normally: one refund, not two.
    const ok = await upload(t.url, key.secret, 'ok.txt', 'The garden is big.\n');
    expect((await waitForJob(t.url, key.secret, ok.body.data.document.id)).status).toBe('done');
    expect(await used()).toBe(ok.body.data.document.characters);
  });
});
