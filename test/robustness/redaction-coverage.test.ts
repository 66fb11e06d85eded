/**
 * Row 5: `redactContent` must cover every adapter's content keys on every span it could match —
 * OpenClaw's own veto spans and OpenInference TOOL spans without a usable name included — read
 * its environment switch fail-closed, and say so when the SDK gives it no chance to redact.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWorld, resetGlobals, runRoot, sc, type World } from './harness.js';
import { context, diag, DiagLogLevel, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import {
  BasicTracerProvider as OldBasicTracerProvider,
  SimpleSpanProcessor as OldSimpleSpanProcessor,
  type SpanExporter,
} from 'sdk-trace-base-2-0';
import { ToolLoopSpanProcessor } from '../../src/index.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  vi.unstubAllEnvs();
  resetGlobals();
});

const SECRET_IN = '{"token":"sk-secret-input"}';
const SECRET_OUT = 'secret output 42';

function exportedAttributes(w: World): Array<Record<string, unknown>> {
  return w.exporter.getFinishedSpans().map((span) => span.attributes as Record<string, unknown>);
}

function expectNoSecrets(w: World): void {
  const text = JSON.stringify(exportedAttributes(w));
  expect(text).not.toContain('sk-secret-input');
  expect(text).not.toContain('secret output 42');
}

describe('redactContent on spans the adapters reject or cannot name', () => {
  it("OpenClaw's own veto spans lose openclaw.content.tool_input / tool_output", async () => {
    world = await createWorld({ redactContent: true });
    const root = runRoot(world.tracer, 'run-veto');
    const veto = world.tracer.startSpan(
      'openclaw.tool.execution',
      { attributes: { 'openclaw.toolName': 'exec', 'openclaw.outcome': 'blocked' } },
      trace.setSpan(ROOT_CONTEXT, root),
    );
    veto.setAttribute(sc.ATTR_OPENCLAW_CONTENT_TOOL_INPUT, SECRET_IN);
    veto.setAttribute(sc.ATTR_OPENCLAW_CONTENT_TOOL_OUTPUT, SECRET_OUT);
    veto.end();
    root.end();
    expectNoSecrets(world);
  });

  it.each(['', '   '])('OpenInference TOOL spans named %j lose input.value / output.value', async (name) => {
    world = await createWorld({ redactContent: true });
    const span = world.tracer.startSpan(name, { attributes: { [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'TOOL' } });
    span.setAttribute(sc.ATTR_OPENINFERENCE_INPUT_VALUE, SECRET_IN);
    span.setAttribute(sc.ATTR_OPENINFERENCE_OUTPUT_VALUE, SECRET_OUT);
    span.end();
    expectNoSecrets(world);
  });
});

describe('TOOL_LOOP_GUARD_REDACT_CONTENT is read fail-closed', () => {
  it.each(['yes', 'on', '1', 'TRUE', ' true '])('%j turns redaction on', async (value) => {
    vi.stubEnv('TOOL_LOOP_GUARD_REDACT_CONTENT', value);
    world = await createWorld();
    const span = world.tracer.startSpan('execute_tool read', {
      attributes: { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read', [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: SECRET_IN },
    });
    span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, SECRET_OUT);
    span.end();
    expectNoSecrets(world);
  });

  it('an unrecognised value redacts and warns naming the variable', async () => {
    vi.stubEnv('TOOL_LOOP_GUARD_REDACT_CONTENT', 'perhaps');
    world = await createWorld();
    const span = world.tracer.startSpan('execute_tool read', {
      attributes: { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read', [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: SECRET_IN },
    });
    span.end();
    expectNoSecrets(world);
    expect(world.diagLines.some((line) => line.includes('TOOL_LOOP_GUARD_REDACT_CONTENT'))).toBe(true);
  });

  it.each(['no', 'off', '0', 'false'])('%j leaves content in place (control)', async (value) => {
    vi.stubEnv('TOOL_LOOP_GUARD_REDACT_CONTENT', value);
    world = await createWorld();
    const span = world.tracer.startSpan('execute_tool read', {
      attributes: { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read', [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: SECRET_IN },
    });
    span.end();
    expect(JSON.stringify(exportedAttributes(world))).toContain('sk-secret-input');
  });
});

describe('an SDK that never calls onEnding (sdk-trace-base 2.0–2.2)', () => {
  it('redactContent: true still redacts every span before it is exported, and has nothing to warn about', async () => {
    const lines: string[] = [];
    const log = (...args: unknown[]) => lines.push(args.map(String).join(' '));
    diag.setLogger({ error: log, warn: log, info: log, debug: () => {}, verbose: () => {} }, DiagLogLevel.INFO);
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const processor = await ToolLoopSpanProcessor.create({ redactContent: true });
    // Serialises what it is handed at once, as the OTLP exporters do; placed first, as the
    // Traceloop SDK places its exporting processor, so it exports before the processor's onEnd.
    const serialised: string[] = [];
    const exporter: SpanExporter = {
      export: (spans, done) => {
        serialised.push(...spans.map((span) => JSON.stringify(span.attributes)));
        done({ code: ExportResultCode.SUCCESS });
      },
      shutdown: () => Promise.resolve(),
    };
    const provider = new OldBasicTracerProvider({
      spanProcessors: [new OldSimpleSpanProcessor(exporter), processor],
    });
    const tracer = provider.getTracer('old-sdk');
    // A span that is no tool call first: its content is redacted just the same.
    const chat = tracer.startSpan('chat', { attributes: { [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: SECRET_OUT } });
    chat.end();
    for (let i = 0; i < 3; i += 1) {
      const span = tracer.startSpan('execute_tool read', {
        attributes: {
          [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
          [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: SECRET_IN,
        },
      });
      span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, SECRET_OUT);
      span.end();
    }
    await provider.forceFlush();
    expect(serialised).toHaveLength(4);
    const text = serialised.join('\n');
    expect(text).toContain('execute_tool');
    expect(text).not.toContain('sk-secret-input');
    expect(text).not.toContain('secret output 42');
    await provider.shutdown();
    expect(lines.filter((line) => /onEnding/.test(line))).toEqual([]);
    expect(warnings).not.toHaveBeenCalled();
  });
});
