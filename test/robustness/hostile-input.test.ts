/**
 * Hostile and broken input, one named test each (issue 8): huge strings, deep and circular
 * values through the helpers, invalid JSON, non-string attribute types, odd tool names,
 * bad thresholds, unknown keys, a config file that is not an object.
 */
import { ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveLoopDetectionConfig } from '../../src/config/index.js';
import { ConfigFileError, loadConfigFile, traceRun, traceToolCall, ToolLoopSpanProcessor } from '../../src/index.js';
import {
  createOtelHarness,
  recordDiag,
  resetOtelGlobals,
  sc,
  spanAttributes,
  startRunSpan,
  type OtelHarness,
} from '../helpers/otel-harness.js';
import { SMALL } from './harness.js';

const MB10 = 10 * 1024 * 1024;

let harness: OtelHarness | undefined;
afterEach(async () => {
  await harness?.shutdown();
  harness = undefined;
  resetOtelGlobals();
});

/** `n` identical raw tool calls in one run; returns the level each call's start verdict had. */
function repeat(
  h: OtelHarness,
  runId: string,
  n: number,
  tool: unknown,
  args: unknown,
  result: unknown,
): Array<string | undefined> {
  const root = startRunSpan(h.tracer, { runId });
  const levels: Array<string | undefined> = [];
  for (let i = 0; i < n; i += 1) {
    const span = h.tracer.startSpan(
      'execute_tool',
      {
        attributes: {
          [sc.ATTR_GEN_AI_TOOL_NAME]: tool as string,
          ...(args === undefined ? {} : { [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: args as string }),
        },
      },
      inRun(root),
    );
    levels.push(spanAttributes(span)[sc.ATTR_TOOL_LOOP_VERDICT] as string | undefined);
    if (result !== undefined) span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, result as string);
    span.end();
  }
  return levels;
}

function inRun(root: Span) {
  return trace.setSpan(ROOT_CONTEXT, root);
}

/** A value nested `depth` levels deep: `{a:{a:{…}}}` or `[[[…]]]`. */
function deep(depth: number, kind: 'object' | 'array'): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i += 1) value = kind === 'object' ? { a: value } : [value];
  return value;
}

function circular(): Record<string, unknown> {
  const value: Record<string, unknown> = { name: 'loop', list: [] };
  value.self = value;
  (value.list as unknown[]).push(value, { back: value });
  return value;
}

describe('hostile and broken input', () => {
  it('10 MB argument and result strings are hashed (not stored) and loops on them are still caught', async () => {
    harness = await createOtelHarness({ config: SMALL });
    const big = 'A'.repeat(MB10);
    const args = JSON.stringify({ blob: big });
    const started = performance.now();
    const levels = repeat(harness, 'big-run', 5, 'read', args, big);
    const elapsed = performance.now() - started;
    expect(levels).toEqual([undefined, undefined, 'warning', 'critical', 'critical']);
    expect(harness.loopEvents.filter((e) => e.level === 'critical').map((e) => [e.detector, e.count])).toEqual([
      ['generic_repeat', 3],
      ['generic_repeat', 4],
    ]);
    // A different 10 MB payload (last character changed) is a different call.
    const other = repeat(harness, 'big-run', 1, 'read', JSON.stringify({ blob: big.slice(0, -1) + 'B' }), big);
    expect(other).toEqual([undefined]);
    console.log(`[hostile] 5 calls with 10 MB args + 10 MB result: ${elapsed.toFixed(0)} ms`);
  });

  it('10 MB args and result through traceToolCall: blocked at the threshold, tool not run when blocked', async () => {
    harness = await createOtelHarness({ config: SMALL, contextManager: true });
    const big = 'Z'.repeat(MB10);
    let executed = 0;
    const outcomes = await traceRun(harness.tracer, { runId: 'helper-big', endOnSecondCritical: false }, async () => {
      const out: unknown[] = [];
      for (let i = 0; i < 5; i += 1) {
        out.push(
          await traceToolCall(harness!.tracer, { name: 'fetch', args: { url: big } }, () => {
            executed += 1;
            return { body: big };
          }),
        );
      }
      return out;
    });
    expect(executed).toBe(3);
    expect((outcomes[3] as { details: { status: string } }).details.status).toBe('blocked');
    // Only hashes went onto the spans.
    for (const span of harness.finished()) expect(JSON.stringify(span.attributes).length).toBeLessThan(2_000);
  });

  it('deeply nested (depth 10 000) args and results through traceToolCall: hashed without recursion, loops caught', async () => {
    harness = await createOtelHarness({ config: SMALL, contextManager: true });
    let executed = 0;
    await traceRun(harness.tracer, { runId: 'deep', endOnSecondCritical: false }, async () => {
      for (let i = 0; i < 5; i += 1) {
        await traceToolCall(harness!.tracer, { name: 'deep_tool', args: deep(10_000, 'object') }, () => {
          executed += 1;
          return deep(10_000, 'array');
        });
      }
    });
    expect(executed).toBe(3);
    expect(harness.loopEvents.filter((e) => e.level === 'critical')[0]).toMatchObject({
      detector: 'generic_repeat',
      count: 3,
    });
  });

  it('deeply nested (depth 10 000) JSON text in gen_ai.tool.call.arguments / result is parsed and hashed', async () => {
    harness = await createOtelHarness({ config: SMALL });
    expect(
      repeat(
        harness,
        'deep-raw',
        4,
        'read',
        '['.repeat(10_000) + ']'.repeat(10_000),
        '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
      ),
    ).toEqual([undefined, undefined, 'warning', 'critical']);
  });

  it('deeply nested (depth 10 000) args with recordContent: traceToolCall still runs the tool', async () => {
    harness = await createOtelHarness({ config: SMALL, contextManager: true });
    let executed = 0;
    await traceRun(harness.tracer, { runId: 'deep-content' }, () =>
      traceToolCall(harness!.tracer, { name: 'deep_tool', args: deep(10_000, 'array'), recordContent: true }, () => {
        executed += 1;
        return 'ok';
      }),
    );
    expect(executed).toBe(1);
  });

  it('deeply nested (depth 10 000) result with recordContent: traceToolCall still returns it', async () => {
    harness = await createOtelHarness({ config: SMALL, contextManager: true });
    const result = deep(10_000, 'array');
    const got = await traceRun(harness.tracer, { runId: 'deep-content-result' }, () =>
      traceToolCall(harness!.tracer, { name: 'deep_tool', args: {}, recordContent: true }, () => result),
    );
    expect(got).toBe(result);
  });

  it('circular args and results through traceToolCall (with and without recordContent)', async () => {
    harness = await createOtelHarness({ config: SMALL, contextManager: true });
    const results: unknown[] = [];
    await traceRun(harness.tracer, { runId: 'circular', endOnSecondCritical: false }, async () => {
      for (let i = 0; i < 5; i += 1) {
        results.push(
          await traceToolCall(harness!.tracer, { name: 'cyc', args: circular(), recordContent: i % 2 === 0 }, () =>
            circular(),
          ),
        );
      }
    });
    expect(results.slice(0, 3).every((r) => (r as { name: string }).name === 'loop')).toBe(true);
    expect(harness.loopEvents.filter((e) => e.level === 'critical')[0]).toMatchObject({
      detector: 'generic_repeat',
      count: 3,
    });
  });

  it('a result whose enumerable getter throws: traceToolCall still returns the result', async () => {
    harness = await createOtelHarness({ config: SMALL, contextManager: true });
    const result = Object.defineProperty({}, 'lazy', {
      enumerable: true,
      get() {
        throw new Error('getter exploded');
      },
    });
    const got = await traceRun(harness.tracer, { runId: 'getter' }, () =>
      traceToolCall(harness!.tracer, { name: 'sdk_call', args: {} }, () => result),
    );
    expect(got).toBe(result);
  });

  it('args whose enumerable getter throws: traceToolCall still runs the tool (unguarded)', async () => {
    harness = await createOtelHarness({ config: SMALL, contextManager: true });
    const args = Object.defineProperty({}, 'lazy', {
      enumerable: true,
      get() {
        throw new Error('getter exploded');
      },
    });
    let executed = 0;
    await traceRun(harness.tracer, { runId: 'getter-args' }, () =>
      traceToolCall(harness!.tracer, { name: 'sdk_call', args }, () => {
        executed += 1;
        return 'ok';
      }),
    );
    expect(executed).toBe(1);
  });

  it('invalid JSON in gen_ai.tool.call.arguments / result is hashed as plain text; identical text still loops', async () => {
    harness = await createOtelHarness({ config: SMALL });
    for (const bad of ['{', '[1,', '{"a":', 'nul', '"unterminated', '{"a":1}}', '\ud800']) {
      const levels = repeat(harness, `bad-${bad}`, 4, 'read', bad, bad);
      expect(levels, bad).toEqual([undefined, undefined, 'warning', 'critical']);
    }
    // Different invalid texts are different calls.
    expect(repeat(harness, 'bad-mixed', 1, 'read', '{', '[')).toEqual([undefined]);
  });

  it('non-string attribute types (numbers, booleans, arrays, NaN) on every input attribute: no throw, sane behaviour', async () => {
    const diagLog = recordDiag();
    harness = await createOtelHarness({ config: SMALL });
    const values: unknown[] = [0, -1, Number.NaN, Infinity, true, false, [], ['a', 'b'], [1, 2], [true], [null, 'x']];
    const root = startRunSpan(harness.tracer, { runId: 'types' });
    for (const value of values) {
      for (const key of [
        sc.ATTR_GEN_AI_TOOL_NAME,
        sc.ATTR_GEN_AI_TOOL_CALL_ID,
        sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
        sc.ATTR_GEN_AI_TOOL_CALL_RESULT,
        sc.ATTR_TOOL_LOOP_ARGS_HASH,
        sc.ATTR_TOOL_LOOP_RESULT_HASH,
        sc.ATTR_TOOL_LOOP_POLL,
        sc.ATTR_TOOL_LOOP_UNKNOWN_TOOL,
        sc.ATTR_TOOL_LOOP_RUN_ID,
        sc.ATTR_GEN_AI_AGENT_ID,
        sc.ATTR_COMPACTION_RETRY,
      ]) {
        const attributes = { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read', [key]: value as string };
        expect(() => {
          const span = harness!.tracer.startSpan('execute_tool', { attributes }, inRun(root));
          span.setAttribute(key, value as string);
          span.end();
        }).not.toThrow();
      }
    }
    // A non-string tool name is not a tool span: 5 "calls" named 42 produce nothing.
    expect(repeat(harness, 'numeric-name', 5, 42, '{}', '"x"')).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    // Numeric arguments and results are values like any other: identical ones loop.
    expect(repeat(harness, 'numeric-args', 4, 'read', 7, 8)).toEqual([undefined, undefined, 'warning', 'critical']);
    expect(diagLog.lines.filter((line) => /on(Start|Ending|End) failed/.test(line.text))).toEqual([]);
  });

  it('empty, blank and 10 KB tool names', async () => {
    harness = await createOtelHarness({ config: SMALL });
    expect(repeat(harness, 'empty-name', 5, '', '{}', '"x"')).toEqual(Array(5).fill(undefined));
    expect(repeat(harness, 'blank-name', 5, '   ', '{}', '"x"')).toEqual(Array(5).fill(undefined));
    const long = 'n'.repeat(10 * 1024);
    expect(repeat(harness, 'long-name', 4, long, '{}', '"x"')).toEqual([undefined, undefined, 'warning', 'critical']);
    const critical = harness.loopEvents.find((e) => e.level === 'critical')!;
    // Bounded as every text taken from a span: its head and a digest of the whole.
    expect(critical.toolName).toMatch(/^n{111}…[0-9a-f]{16}$/);
    // The helper rejects a blank name with a TypeError before starting a span; it does not crash the host.
    await expect(traceToolCall(harness.tracer, { name: '  ', args: {} }, () => 1)).rejects.toBeInstanceOf(TypeError);
  });

  it('NaN / negative / zero / fractional / Infinity / string thresholds fall back to defaults with a diag warning naming the key', async () => {
    const bad: Record<string, unknown> = {
      historySize: Number.NaN,
      warningThreshold: -3,
      criticalThreshold: '5',
      globalCircuitBreakerThreshold: Infinity,
      unknownToolThreshold: 2.5,
      postCompactionGuard: { windowSize: 0 },
    };
    const diagLog = recordDiag();
    harness = await createOtelHarness({ config: { tools: { loopDetection: { enabled: true, ...bad } } } });
    const warnings = diagLog.at('warn').join('\n');
    for (const key of [
      'historySize',
      'warningThreshold',
      'criticalThreshold',
      'globalCircuitBreakerThreshold',
      'unknownToolThreshold',
      'postCompactionGuard.windowSize',
    ]) {
      expect(warnings, key).toContain(`tools.loopDetection.${key}`);
    }
    // …and the defaults are what runs: 10 identical calls, the 11th warns (W 10), none is critical.
    expect(repeat(harness, 'defaults', 11, 'read', '{}', '"same"').filter(Boolean)).toEqual(['warning']);
    const resolved = resolveLoopDetectionConfig({ enabled: true, ...bad });
    expect(resolved).toMatchObject({
      historySize: 30,
      warningThreshold: 10,
      criticalThreshold: 20,
      globalCircuitBreakerThreshold: 30,
      unknownToolThreshold: 10,
      postCompactionGuard: { windowSize: 3 },
    });
  });

  it('huge thresholds: 1e300 is no safe integer and falls back; MAX_SAFE_INTEGER is clamped so that the thresholds stay strictly increasing; nothing fires or throws', async () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(
      resolveLoopDetectionConfig({ warningThreshold: max, criticalThreshold: 1e300, historySize: 1e300 }),
    ).toMatchObject({
      warningThreshold: max - 2,
      criticalThreshold: max - 1,
      globalCircuitBreakerThreshold: max,
      historySize: 30,
    });
    expect(
      resolveLoopDetectionConfig({ warningThreshold: max, criticalThreshold: max, globalCircuitBreakerThreshold: max }),
    ).toMatchObject({
      warningThreshold: max - 2,
      criticalThreshold: max - 1,
      globalCircuitBreakerThreshold: max,
    });
    expect(
      resolveLoopDetectionConfig({
        warningThreshold: max - 2,
        criticalThreshold: max - 1,
        globalCircuitBreakerThreshold: max,
      }),
    ).toMatchObject({ warningThreshold: max - 2 });
    harness = await createOtelHarness({
      config: {
        tools: {
          loopDetection: {
            enabled: true,
            warningThreshold: Number.MAX_SAFE_INTEGER,
            criticalThreshold: 1e300,
            globalCircuitBreakerThreshold: 1e300,
            historySize: 1e300,
          },
        },
      },
    });
    expect(repeat(harness, 'huge', 50, 'read', '{}', '"same"').filter(Boolean)).toEqual([]);
  });

  it('unknown config keys produce a diag warning, not a crash; known keys still apply', async () => {
    const diagLog = recordDiag();
    harness = await createOtelHarness({
      config: {
        tools: {
          loopDetection: {
            enabled: true,
            warningThreshold: 2,
            criticalThreshold: 3,
            turboMode: true,
            detectors: { sixthSense: true },
          },
        },
        extra: 1,
      } as never,
    });
    const warnings = diagLog.at('warn').join('\n');
    expect(warnings).toContain('tools.loopDetection.turboMode');
    expect(warnings).toContain('tools.loopDetection.detectors.sixthSense');
    expect(warnings).toContain('extra');
    expect(repeat(harness, 'unknown-keys', 4, 'read', '{}', '"same"')).toEqual([
      undefined,
      undefined,
      'warning',
      'critical',
    ]);
  });

  it('a config file with an unknown key: create warns once through diag, naming the file and the key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tlg-config-'));
    const file = join(dir, 'config.json5');
    await writeFile(file, '{ tools: { loopDetection: { enabled: true, bogus: 1 } } }');
    const diagLog = recordDiag();
    try {
      await ToolLoopSpanProcessor.create({ configFile: file });
      expect(diagLog.matching('bogus').map((line) => line.text)).toEqual([
        expect.stringContaining(`config ${file}: tools.loopDetection.bogus: unknown key`),
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a JSON5 file that is not an object is a ConfigFileError (loadConfigFile and create with configFile)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tlg-config-'));
    try {
      for (const [name, text] of [
        ['array.json5', '[1, 2, 3]'],
        ['number.json5', '42'],
        ['string.json5', "'tools'"],
        ['null.json5', 'null'],
        ['bool.json5', 'true'],
      ] as const) {
        const file = join(dir, name);
        await writeFile(file, text);
        await expect(loadConfigFile(file), name).rejects.toBeInstanceOf(ConfigFileError);
        await expect(ToolLoopSpanProcessor.create({ configFile: file }), name).rejects.toBeInstanceOf(ConfigFileError);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
