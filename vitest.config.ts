import { defineConfig } from 'vitest/config';
import { TEST_GRAPH_CACHE } from './test/fixture-models.ts';

// Per-suite options go in `common`: each project below gets them (projects do not inherit `test` options).
const common = {
  // Model-backed suites load ONNX sessions and start servers: give them room on a 2-core machine.
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // The servers and commands the suites start as processes (which inherit this) read the tiny models' prepared
  // graphs from one folder instead of preparing them in each fresh data folder (test/fixture-models.ts).
  env: { DRAGOMAN_GRAPH_CACHE_DIR: TEST_GRAPH_CACHE },
};

export default defineConfig({
  test: {
    // The default report, then what was skipped for want of a tool (test/tools.ts) and how to install it.
    reporters: ['default', './test/skipped-tools-reporter.ts'],
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      { test: { name: 'main', include: ['test/**/*.test.ts'], ...common } },
      // With a PostgreSQL server (.ci/run starts one), the in-process API suite and the gate tests run a second
      // time on the PostgreSQL account store (they read DRAGOMAN_TEST_BACKEND; the documents suite keeps its job records
      // there too; the memories suites keep their memories there). The store contract itself runs on
      // both backends in test/postgres/store-backends.test.ts.
      ...(process.env.DRAGOMAN_TEST_DATABASE_URL
        ? [
            {
              test: {
                name: 'api-on-postgres',
                include: ['test/api/v1.test.ts', 'test/api/admin.test.ts', 'test/api/glossaries.test.ts', 'test/accounts/gate.test.ts', 'test/documents/api.test.ts', 'test/documents/glossary.test.ts', 'test/documents/storage.test.ts', 'test/memories/v1.test.ts', 'test/memories/deepl-client.test.ts', 'test/memories/documents.test.ts'],
                ...common,
                env: { ...common.env, DRAGOMAN_TEST_BACKEND: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
