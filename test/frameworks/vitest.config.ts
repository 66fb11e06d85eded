import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The package under test is the root's build output, as a user would import it
    // (TOOL_LOOP_GUARD_ENTRY points at another build's dist/esm/index.js).
    alias: { 'tool-loop-guard': process.env.TOOL_LOOP_GUARD_ENTRY ?? fileURLToPath(new URL('../../dist/esm/index.js', import.meta.url)) },
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
