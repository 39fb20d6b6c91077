import { defineConfig } from 'vitest/config';

// One config for every suite. The JSON report is what .ci/run reads for its
// closing "tests: N passed, N failed, N skipped" line.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', ['json', { outputFile: 'reports/vitest.json' }]],
  },
});
