import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/frameworks is its own npm workspace with its own lockfile and vitest config.
    exclude: ['test/frameworks/**', '**/node_modules/**'],
    globalSetup: ['test/helpers/build-dist.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
