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
    expect(report('file-rereader')).toMatchObject({ outcome: 'stopped by a block', calls: 21, executed: 20 });
    expect(report('ping-ponger')).toMatchObject({ outcome: 'stopped by a block', calls: 20, executed: 19 });
    expect(report('tool-hallucinator')).toMatchObject({ outcome: 'stopped by a block', calls: 11, executed: 10 });
    expect(report('retry-spammer')).toMatchObject({ outcome: 'stopped by a block', calls: 31, executed: 30 });
    expect(report('compaction-looper')).toMatchObject({ outcome: 'aborted', calls: 7 });
  });

  it('exports the loop events on the tool spans', () => {
    const names = exporter.getFinishedSpans().flatMap((span) => span.events.map((event) => event.name));
    for (const name of ['tool_loop.warning', 'tool_loop.blocked', 'tool_loop.guard_armed', 'tool_loop.aborted']) {
      expect(names).toContain(name);
    }
  });
});
