// The PostgreSQL suites run only when DRAGOMAN_TEST_DATABASE_URL names a server. Absent, they must not pass
// silently: in CI (CI=true, where .ci/run starts a cluster) this fails; elsewhere it is reported as skipped, and counted in the run's summary (test/tools.ts).
import { expect, it } from 'vitest';
import { TEST_DATABASE_URL } from './pg-helpers.ts';
import { needsNote } from '../tools.ts';

it('DRAGOMAN_TEST_DATABASE_URL is set, so the PostgreSQL suites ran', (ctx) => {
  if (!TEST_DATABASE_URL && process.env.CI !== 'true') {
    ctx.skip(`PostgreSQL suites NOT RUN: ${needsNote('postgresql')}`);
  }
  expect(TEST_DATABASE_URL, 'CI must run the PostgreSQL suites: .ci/run exports DRAGOMAN_TEST_DATABASE_URL').toMatch(
    /^postgres(ql)?:\/\//,
  );
});
