/**
 * Runs a script against the built package in a process of its own, for failures that would
 * end that process (an uncaught exception, an unhandled rejection) — what a host sees.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Built by the test run's global setup (test/helpers/build-dist.ts). */
const PACKAGE = new URL('../../dist/esm/index.js', import.meta.url).href;

export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `body` as an ES module (top-level `await` allowed) in a new Node process started in the
 * repository, so that `@opentelemetry/*` resolve; `pkg` is the built package's module. Node's
 * defaults apply: an uncaught exception or unhandled rejection ends the process with code 1.
 */
export function runWithBuiltPackage(body: string, timeoutMs = 20_000): ScriptRun {
  const script = `const pkg = await import(${JSON.stringify(PACKAGE)});\n${body}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}
