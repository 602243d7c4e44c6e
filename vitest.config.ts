import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Most suites wait on processes they start (servers, Redis, Kafka, Schemathesis), not on a
    // core: one file per core, at least two at once. Vitest's default leaves a core free, which on
    // a 2-core CI runner ran every file one after another.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.test.ts'] } },
      {
        extends: true,
        test: { name: 'int', include: ['test/**/*.int.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['test/**/*.e2e.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 },
      },
    ],
  },
});
