import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The package under test is the root's build output, as a user would import it.
    alias: { 'tool-loop-guard': fileURLToPath(new URL('../../dist/esm/index.js', import.meta.url)) },
  },
  test: {
    include: ['probe/**/*.test.ts', 'acceptance/**/*.test.ts'],
    globalSetup: ['harness/reset-observations.ts'],
    // Each file installs its own global context manager and instrumentation: keep them apart.
    pool: 'forks',
    isolate: true,
    maxWorkers: 2,
    // Loaded by Node itself, as a user's app loads the package (not transformed by Vite).
    server: { deps: { external: [/\/dist\/esm\//] } },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
