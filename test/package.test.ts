import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../src/version.js';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string };

describe('package', () => {
  it('keeps src/version.ts in step with package.json', () => {
    expect({ name: PACKAGE_NAME, version: PACKAGE_VERSION }).toEqual({ name: pkg.name, version: pkg.version });
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
