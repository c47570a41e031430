import { defineConfig } from 'vitest/config';

/**
 * The deployment tests (container image, Helm chart and compose, rolling upgrade): slow and needing podman,
 * helm and a build of the previous release, so `.ci/run` runs them in a process of their own beside the
 * main suite (`npx vitest run --config test/deploy/vitest.config.ts`), one file at a time.
 */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/deploy/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 25 * 60_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
