// The states a crash can leave a job's acceptance or refund in, written as such into the real stores of a running
// server, which its sweep must settle: charged exactly once or refunded exactly once, never twice, never lost.
// - accepted up to the charge (record pending, named charge made): given back, the job failed;
// - accepted up to the record only (pending, no charge yet): failed, and its charge can no longer be made;
// - failed but not refunded (status error, charged): refunded, once, however many sweeps follow.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plannedCharge } from '../../src/documents/charge.ts';
import type { JobRecord } from '../../src/documents/job.ts';
import { SqliteJobStore } from '../../src/documents/sqlite-store.ts';
import { startTestApp, type TestApp } from '../api/helpers.ts';
import { sqliteJobStore } from '../stores.ts';

let t: TestApp;
let key: { id: string; secret: string };
let jobs: SqliteJobStore;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.key();
  jobs = sqliteJobStore(join(t.dataDir, 'dragoman.db'));
});

afterAll(async () => {
  await jobs?.close();
  await t?.close();
});

const period = () => new Date(t.clock.now()).toISOString().slice(0, 7);
const usage = async () => {
  const { chars, requests } = await t.app.store.usage(key.id, period());
  return { chars, requests };
};

function record(id: string, fields: Partial<JobRecord>): JobRecord {
  const now = t.clock.now();
  const job: JobRecord = {
    id, keyId: key.id, status: 'queued', filename: 'a.txt', format: 'txt', source: 'en', detectedSource: undefined, target: 'de', glossary: undefined,
    characters: 100, progress: 0, createdAt: now, expiresAt: now + 86_400_000, error: undefined, chargeState: 'pending', charge: '',
    leaseUntil: 0, ...fields,
  };
  return { ...job, charge: plannedCharge(job, 86_400_000).charge };
}

async function until(what: () => Promise<boolean>): Promise<void> {
  for (let n = 0; !(await what()); n++) {
    expect(n, 'the sweep did not settle the job').toBeLessThan(150);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('documents: a crash between the job record, its charge and its refund', () => {
  it('the sweep settles each state to one charge or one refund', async () => {
    const named = (id: string) => ({ id, keepUntil: Date.now() + 86_400_000 });
    // Cut short after the charge: the client never heard back.
    const afterCharge = record('a'.repeat(32), {});
    await jobs.insert(afterCharge);
    expect((await t.app.store.charge(key.id, period(), 100, named(afterCharge.id))).ok).toBe(true);
    // Cut short before the charge.
    const beforeCharge = record('b'.repeat(32), {});
    await jobs.insert(beforeCharge);
    // Failed, and cut short before its refund.
    const failed = record('c'.repeat(32), { status: 'error', error: 'The translation failed.', chargeState: 'charged' });
    await jobs.insert(failed);
    expect((await t.app.store.charge(key.id, period(), 100, named(failed.id))).ok).toBe(true);
    expect(await usage()).toEqual({ chars: 200, requests: 2 });

    await until(async () => (await Promise.all([afterCharge, beforeCharge, failed].map((j) => jobs.get(j.id)))).every((j) => j?.chargeState === 'refunded'));
    for (const j of [afterCharge, beforeCharge, failed]) expect(await jobs.get(j.id)).toMatchObject({ status: 'error', chargeState: 'refunded' });
    expect(await usage()).toEqual({ chars: 0, requests: 0 });
    const status = await t.call('GET', `/v1/documents/${beforeCharge.id}`, { key: key.secret });
    expect(status.body.data.document).toMatchObject({ status: 'error', error: { message: expect.stringMatching(/nothing was charged/) } });
    // The charge the interrupted acceptance was about to make can no longer be made.
    await expect(t.app.store.charge(key.id, period(), 100, named(beforeCharge.id))).rejects.toThrow();

    // Later sweeps (every 5 s) change nothing: refunded once.
    await new Promise((r) => setTimeout(r, 6000));
    expect(await usage()).toEqual({ chars: 0, requests: 0 });
  }, 60_000);
});
