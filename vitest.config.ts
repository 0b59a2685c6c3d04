import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A hang guard, not a budget: integration tests spawn real processes and daemons, and on a busy
    // 2-core machine (load 8 and more) a test of a few seconds can take a minute. Each wait inside a
    // test has its own guard; the longest tests (growing with load) wait on progress and set no
    // total at all (NO_TOTAL_BUDGET in test/helpers/wait.ts).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
