// A server killed (SIGKILL) while it translates a document, with its accounts and job records in PostgreSQL
// (DRAGOMAN_DATABASE_URL on a fresh database): once a server runs again, the job is finished (or failed and
// refunded) and the key is charged for it exactly once; the charge is the one named by the job's id, and its
// ledger row is kept past the hourly pruning (a late refund still finds it).
import { afterAll, describe, expect, it } from 'vitest';
import { killRestart } from '../documents/kill-restart.ts';
import { type FreshDatabase, freshDatabase, sql, TEST_DATABASE_URL } from './pg-helpers.ts';
import { describeNeeding } from '../tools.ts';

describeNeeding('postgresql')('documents on PostgreSQL: SIGKILL mid-job, then a restart', () => {
  const scenario = killRestart();
  let db: FreshDatabase | undefined;
  afterAll(async () => {
    scenario.cleanup();
    await db?.drop();
  });

  it('the job finishes (or fails and is refunded) and is charged exactly once', async () => {
    db = await freshDatabase();
    const id = await scenario.run(db.url);
    const [job] = await sql(db.url, 'SELECT status, charge_state FROM document_jobs WHERE id = $1', [id]);
    expect(job).toEqual(job!.status === 'done' ? { status: 'done', charge_state: 'charged' } : { status: 'error', charge_state: 'refunded' });
    const [ledger] = await sql(db.url, 'SELECT keep_until_ms FROM charges WHERE id = $1', [id]);
    expect(Number(ledger!.keep_until_ms)).toBeGreaterThan(Date.now() + 3_600_000);
  }, 240_000);
});
