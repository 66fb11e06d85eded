import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/cli.js';
import type { CliIo } from '../../src/cli/progress.js';

/** Runs the CLI in-process and captures its output. */
export async function runCli(
  args: readonly string[],
  options: { tty?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stderrIsTTY: options.tty === true,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** A temporary folder with helpers to write fixtures; call `cleanup()` after the test. */
export function fixtureDir(): { dir: string; write(name: string, content: string | object): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tool-loop-guard-cli-'));
  return {
    dir,
    write(name, content) {
      const path = join(dir, name);
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return path;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `../shared/trajectories` relative to the repository root. */
export const TRAJECTORIES = fileURLToPath(new URL('../../../shared/trajectories/', import.meta.url));

/**
 * Why the tests on the evaluation data cannot run here (`''` when they can): the data lives next
 * to the repository, not in it, and a clone alone has none.
 */
export const TRAJECTORIES_MISSING = existsSync(join(TRAJECTORIES, 'index.json'))
  ? ''
  : `${TRAJECTORIES}index.json not found: the evaluation data lives next to the repository, not in it`;

/** A suite name that says, when the evaluation data is missing, why the suite is skipped. */
export function onTrajectories(name: string): string {
  return TRAJECTORIES_MISSING === '' ? name : `${name} (skipped: ${TRAJECTORIES_MISSING})`;
}

/** Trajectory JSONL text from calls. */
export function jsonl(lines: readonly object[]): string {
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

/** OTLP AnyValue of a JS value. */
export function anyValue(value: unknown): object {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  throw new Error(`unsupported ${typeof value}`);
}

/** OTLP `[{key, value}]`. */
export function otlpAttributes(attributes: Record<string, unknown>): object[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

export interface FixtureSpan {
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** Start and end in ms from the trace's time origin. */
  start: number;
  end: number;
  attributes?: Record<string, unknown>;
  error?: string;
}

const ORIGIN_NS = 1_700_000_000_000_000_000n;

/** An OTLP span in JSON encoding (hex ids, nanosecond strings). */
export function otlpSpan(traceId: string, span: FixtureSpan): object {
  return {
    traceId,
    spanId: span.spanId,
    ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
    name: span.name,
    kind: 1,
    startTimeUnixNano: String(ORIGIN_NS + BigInt(span.start) * 1_000_000n),
    endTimeUnixNano: String(ORIGIN_NS + BigInt(span.end) * 1_000_000n),
    attributes: otlpAttributes(span.attributes ?? {}),
    status: span.error !== undefined ? { code: 2, message: span.error } : { code: 0 },
  };
}

/** An `ExportTraceServiceRequest` with one resource and one scope. */
export function otlpDocument(traceId: string, spans: readonly FixtureSpan[], service = 'agent'): object {
  return {
    resourceSpans: [
      {
        resource: { attributes: otlpAttributes({ 'service.name': service }) },
        scopeSpans: [{ scope: { name: 'test' }, spans: spans.map((span) => otlpSpan(traceId, span)) }],
      },
    ],
  };
}

/** A run span and `n` sequential tool spans under it calling `tool` with `args` → `result`. */
export function loopSpans(
  n: number,
  options: { tool?: string; args?: object; result?: string; runId?: string } = {},
): FixtureSpan[] {
  const spans: FixtureSpan[] = [
    {
      spanId: 'a000000000000001',
      name: 'invoke_agent',
      start: 0,
      end: 10 * (n + 1),
      attributes: options.runId ? { 'tool_loop.run_id': options.runId } : {},
    },
  ];
  for (let i = 0; i < n; i += 1) {
    spans.push({
      spanId: `b${String(i + 1).padStart(15, '0')}`,
      parentSpanId: 'a000000000000001',
      name: `execute_tool ${options.tool ?? 'read'}`,
      start: 10 * i + 1,
      end: 10 * i + 5,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': options.tool ?? 'read',
        'gen_ai.tool.call.arguments': JSON.stringify(options.args ?? { path: '/a' }),
        'gen_ai.tool.call.result': options.result ?? 'same',
      },
    });
  }
  return spans;
}

/** A model call's span under the run span `a000000000000001`, reporting its token usage. */
export function chatSpan(n: number, start: number, end: number, tokens = { input: 100, output: 20 }): FixtureSpan {
  return {
    spanId: `c${String(n).padStart(15, '0')}`,
    parentSpanId: 'a000000000000001',
    name: 'chat model',
    start,
    end,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.usage.input_tokens': tokens.input,
      'gen_ai.usage.output_tokens': tokens.output,
    },
  };
}
