import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../src/version.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

/** The files `npm pack` would publish (paths relative to the package root). */
function packedFiles(): string[] {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const [packed] = JSON.parse(
    execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8' }),
  ) as [{ files: { path: string }[] }];
  return packed.files.map((file) => file.path);
}

/** The package a bare module specifier names (`@scope/name/sub` → `@scope/name`), else `undefined`. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Module specifiers of compiled ESM and CJS code: static and dynamic imports, re-exports, requires. */
const SPECIFIERS = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"'\s]+)["']/g;

describe('package', () => {
  it('keeps src/version.ts in step with package.json', () => {
    expect({ name: PACKAGE_NAME, version: PACKAGE_VERSION }).toEqual({ name: pkg.name, version: pkg.version });
  });

  it('publishes only code whose imports a consumer installs: dependencies, peers and builtins', () => {
    const installed = new Set([
      pkg.name,
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
      ...builtinModules,
    ]);
    const files = packedFiles().filter((path) => /\.(c|m)?js$/.test(path));
    expect(files.length).toBeGreaterThan(0);
    const missing = files.flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(SPECIFIERS)]
        .map((match) => packageOf(match[1]))
        .filter((name): name is string => name !== undefined && !installed.has(name))
        .map((name) => `${path} imports ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('exposes the framework-free engine as tool-loop-guard/engine', () => {
    const script = `const e = require('tool-loop-guard/engine'); e.createDigester().then((d) => console.log(JSON.stringify([typeof e.LoopRun, e.hashToolArgs(d, 'read', { b: 1, a: 2 }) === e.hashToolArgs(d, 'read', { a: 2, b: 1 })])));`;
    expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }))).toEqual([
      'function',
      true,
    ]);
  });

  it.each([
    [
      'ESM',
      `import('tool-loop-guard').then(async (m) => { const p = await m.ToolLoopSpanProcessor.create(); console.log(JSON.stringify([typeof p.onStart, typeof m.traceToolCall, m.semconv.EVENT_TOOL_LOOP_BLOCKED])); })`,
    ],
    [
      'CJS',
      `const m = require('tool-loop-guard'); m.ToolLoopSpanProcessor.create().then((p) => console.log(JSON.stringify([typeof p.onStart, typeof m.traceToolCall, m.semconv.EVENT_TOOL_LOOP_BLOCKED])));`,
    ],
  ])('loads the %s build through the exports map and creates a processor', (_kind, script) => {
    const output = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual(['function', 'function', 'tool_loop.blocked']);
  });
});
