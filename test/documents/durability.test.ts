// A server killed (SIGKILL) while it translates a document: once a server runs again on the same data, the job
// is finished (or failed and refunded) and the key is charged for it exactly once. Job records and accounts in
// the data directory's SQLite database; the same scenario on PostgreSQL is test/postgres/documents-kill.test.ts.
import { afterAll, describe, it } from 'vitest';
import { killRestart } from './kill-restart.ts';

const scenario = killRestart();
afterAll(() => scenario.cleanup());

describe('documents: SIGKILL mid-job, then a restart', () => {
  it('the job finishes (or fails and is refunded) and is charged exactly once', async () => {
    await scenario.run();
  }, 240_000);
});
