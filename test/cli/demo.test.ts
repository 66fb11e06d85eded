import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG, runDemoAgents, type AgentReport } from '../../src/cli/demo.js';
import { ToolLoopSpanProcessor } from '../../src/otel/processor.js';
import type { LoopAbortEvent, LoopEvent } from '../../src/otel/loop-event.js';

describe('demo agents', () => {
  let reports: AgentReport[];
  const events: Array<LoopEvent | LoopAbortEvent> = [];
  const exporter = new InMemorySpanExporter();

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    let sink: { onLoopEvent(e: LoopEvent): void; onAbort(e: LoopAbortEvent): void } | undefined;
    const processor = await ToolLoopSpanProcessor.create({
      config: DEMO_CONFIG,
      onLoopEvent: (e) => (events.push(e), sink?.onLoopEvent(e)),
      onAbort: (e) => (events.push(e), sink?.onAbort(e)),
    });
    const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
    reports = await runDemoAgents(provider.getTracer('demo-test'), (s) => (sink = s));
  });
  afterAll(() => context.disable());

  const report = (id: string) => reports.find((r) => r.id === id)!;

  it('leaves the healthy agent alone', () => {
    expect(report('healthy-builder')).toMatchObject({ outcome: 'finished', lines: [] });
  });

  it('shows every rolling detector and the post-compaction abort', () => {
    const detectors = new Set(events.map((e) => e.detector));
    expect([...detectors].sort()).toEqual([
      'compaction_loop_persisted',
      'generic_repeat',
      'global_circuit_breaker',
      'known_poll_no_progress',
      'ping_pong',
      'unknown_tool_repeat',
    ]);
  });

  it('blocks each looping agent before the blocked call runs', () => {
    expect(report('stuck-poller')).toMatchObject({ outcome: 'stopped by a block', calls: 21, executed: 20 });
    expect(report('file-rereader')).toMatchObject({ outcome: 'ended by the second critical', calls: 22, executed: 20 });
    expect(report('ping-ponger')).toMatchObject({ outcome: 'stopped by a block', calls: 20, executed: 19 });
    expect(report('tool-hallucinator')).toMatchObject({ outcome: 'stopped by a block', calls: 11, executed: 10 });
    expect(report('retry-spammer')).toMatchObject({ outcome: 'stopped by a block', calls: 31, executed: 30 });
    expect(report('compaction-looper')).toMatchObject({ outcome: 'aborted', calls: 7 });
  });

  it('shows a warning reaching the model: the warned call ran and its result carried the system note', () => {
    const note =
      '[System note: Tool-loop warning after 10 repeated calls. Change your approach or stop if you are not making progress.]';
    expect(report('file-rereader').lines).toContain(
      `call 11: the tool ran; the model got its result with the note ${note}`,
    );
    expect(report('stuck-poller').lines).toContain(
      `call 11: the tool ran; the model got its result with the note ${note}`,
    );
  });

  it('shows the one recovery turn, and a run ended by the second critical', () => {
    const lines = report('file-rereader').lines;
    expect(lines).toContain(
      'call 21: the tool did not run; the model got the recovery turn: "Do not repeat this exact tool action. Reassess the task. You may answer the user, ask for clarification, or continue with a different tool or different arguments."',
    );
    expect(lines).toContain(
      'call 22: the tool did not run; the model got "Critical tool-loop recovery failed because another critical loop was detected. This run is stopping now." (terminate: true)',
    );
    expect(lines.at(-1)).toBe('run rejected with ToolLoopBlockedError: code=tool_loop_blocked');
  });

  it('exports the loop events on the tool spans', () => {
    const names = exporter.getFinishedSpans().flatMap((span) => span.events.map((event) => event.name));
    for (const name of ['tool_loop.warning', 'tool_loop.blocked', 'tool_loop.guard_armed', 'tool_loop.aborted']) {
      expect(names).toContain(name);
    }
  });
});

describe('npm run demo (built CLI)', () => {
  it('exports the demo spans and the loop-event counter over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set', async () => {
    const { spawn } = await import('node:child_process');
    const { createServer } = await import('node:http');
    const bodies: Array<{
      resourceSpans: Array<{
        resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
        scopeSpans: Array<{ spans: Array<{ events?: Array<{ name: string }> }> }>;
      }>;
    }> = [];
    const metricBodies: string[] = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(JSON.parse(text) as (typeof bodies)[number]);
        if (req.url === '/v1/metrics') metricBodies.push(text);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const child = spawn(process.execPath, ['dist/esm/cli/demo.js'], {
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        },
      });
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      expect(stdout).toContain(`spans and the tool_loop.events counter exported to http://127.0.0.1:${port}`);
      const resourceSpans = bodies.flatMap((body) => body.resourceSpans);
      const serviceNames = new Set(
        resourceSpans.flatMap((r) =>
          r.resource.attributes.filter((a) => a.key === 'service.name').map((a) => a.value.stringValue),
        ),
      );
      expect([...serviceNames]).toEqual(['tool-loop-guard-demo']);
      const eventNames = new Set(
        resourceSpans.flatMap((r) =>
          r.scopeSpans.flatMap((s) => s.spans.flatMap((span) => (span.events ?? []).map((e) => e.name))),
        ),
      );
      // `exception` events come from the unknown-tool agent's failing calls.
      expect([...eventNames].filter((name) => name.startsWith('tool_loop.')).sort()).toEqual([
        'tool_loop.aborted',
        'tool_loop.blocked',
        'tool_loop.guard_armed',
        'tool_loop.warning',
      ]);
      // The library's own counter goes out through the OTLP MeterProvider the demo passes it.
      expect(metricBodies.some((body) => body.includes('"tool_loop.events"'))).toBe(true);
    } finally {
      server.close();
    }
  }, 120_000);
});
