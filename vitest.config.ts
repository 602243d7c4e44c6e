import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
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
