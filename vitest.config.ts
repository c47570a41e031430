import { defineConfig } from 'vitest/config';

/**
 * Two projects in one run: everything on the embedded default (SQLite, in-process state), and the
 * end-to-end suite again on PostgreSQL (TEST_STORE=postgres). Store and shared-state conformance
 * suites run every implementation in the first project already; provider and process-level suites
 * do not depend on the store and run once. The deployment tests (test/deploy/) have a config of their own.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], exclude: ['test/deploy/**'] },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/e2e/**/*.test.ts'],
          exclude: [
            'test/e2e/providers/**',
            'test/e2e/core/shutdown.test.ts',
            'test/e2e/routing/replicas.test.ts',
            '**/*process*.test.ts',
            '**/*replica*.test.ts',
          ],
          env: { TEST_STORE: 'postgres' },
        },
      },
    ],
  },
});
