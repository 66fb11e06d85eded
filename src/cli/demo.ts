#!/usr/bin/env node
/**
 * `npm run demo`: scripted agents run through the real processor and helpers, and a readable
 * account of every warning, block and abort is printed. With `OTEL_EXPORTER_OTLP_ENDPOINT`
 * set, spans and the library's `tool_loop.events` counter are also exported over OTLP/HTTP
 * (e.g. to the collector in docker-compose.yml).
 */
import { context, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ToolLoopGuardConfig } from '../config/types.js';
import { markCompactionRetry } from '../instrument/mark-compaction-retry.js';
import { traceRun } from '../instrument/trace-run.js';
import { traceToolCall } from '../instrument/trace-tool-call.js';
import type { LoopAbortEvent, LoopEvent } from '../otel/loop-event.js';
import { ToolLoopSpanProcessor } from '../otel/processor.js';
import { ATTR_SERVICE_NAME } from '../semconv.js';

/** The demo's config: rolling detectors on with OpenClaw's thresholds; one agent tuned to show the breaker. */
export const DEMO_CONFIG: ToolLoopGuardConfig = {
  tools: { loopDetection: { enabled: true } },
  agents: { list: [{ id: 'retry-spammer', tools: { loopDetection: { detectors: { genericRepeat: false } } } }] },
};

/** One scripted agent: a name, a description, and a step function returning the next tool call. */
interface ScriptedAgent {
  readonly id: string;
  readonly story: string;
  readonly maxSteps: number;
  readonly compactAfterStep?: number;
  /** Ignores the recovery turn after its first critical and repeats the call: the second critical ends its run. */
  readonly ignoresRecovery?: boolean;
  step(index: number): { tool: string; args: Record<string, unknown>; run: () => unknown };
}

const fail = (message: string) => () => {
  throw new Error(message);
};

/** The scripted agents, in the order they run. */
export const DEMO_AGENTS: readonly ScriptedAgent[] = [
  {
    id: 'healthy-builder',
    story: 'polls a build that makes progress, then reads the report',
    maxSteps: 12,
    step: (i) =>
      i < 11
        ? {
            tool: 'process',
            args: { action: 'poll', sessionId: 'build-7' },
            run: () => ({
              content: [{ type: 'text', text: `compiled ${i * 10}%` }],
              details: { status: 'running', aggregated: `step ${i}` },
            }),
          }
        : { tool: 'read', args: { path: 'build/report.txt' }, run: () => 'build ok' },
  },
  {
    id: 'stuck-poller',
    story: 'polls a process that never prints anything new',
    maxSteps: 40,
    step: () => ({
      tool: 'process',
      args: { action: 'poll', sessionId: 'deploy-1' },
      run: () => ({
        content: [{ type: 'text', text: '(no new output)\n\nProcess still running.' }],
        details: { status: 'running', aggregated: '' },
      }),
    }),
  },
  {
    id: 'file-rereader',
    story: 'reads the same file again and again, always getting the same content, and ignores the recovery turn',
    maxSteps: 40,
    ignoresRecovery: true,
    step: () => ({ tool: 'read', args: { path: 'src/main.ts' }, run: () => 'export const port = 8080;' }),
  },
  {
    id: 'ping-ponger',
    story: 'alternates between reading a file and listing its folder, learning nothing',
    maxSteps: 40,
    step: (i) =>
      i % 2 === 0
        ? { tool: 'read', args: { path: '/workspace/config.yaml' }, run: () => 'port: 8080' }
        : { tool: 'list', args: { dir: '/workspace' }, run: () => ['config.yaml', 'main.ts'] },
  },
  {
    id: 'tool-hallucinator',
    story: 'keeps calling a tool that does not exist, with different queries',
    maxSteps: 40,
    step: (i) => ({
      tool: 'web_search',
      args: { query: `weather in Paris, attempt ${i}` },
      run: fail('Unknown tool: web_search'),
    }),
  },
  {
    id: 'retry-spammer',
    story: 'resends the same request (generic_repeat is disabled for this agent, so only the breaker can stop it)',
    maxSteps: 40,
    step: () => ({ tool: 'http_get', args: { url: 'https://status.example.com' }, run: () => ({ status: 503 }) }),
  },
  {
    id: 'compaction-looper',
    story: 'overflows its context, gets compacted, and repeats the same gateway call anyway',
    maxSteps: 8,
    compactAfterStep: 4,
    step: (i) => ({
      tool: 'gateway',
      args: { action: 'lookup', path: 'users/42' },
      run: () => ({ content: [{ type: 'text', text: 'timeout' }], details: { attempt: Math.min(i, 4) } }),
    }),
  },
];

/** What happened to one agent. */
export interface AgentReport {
  readonly id: string;
  readonly calls: number;
  readonly executed: number;
  readonly lines: string[];
  readonly outcome: 'finished' | 'stopped by a block' | 'ended by the second critical' | 'aborted';
}

/** Runs every scripted agent through `tracer` and reports what the processor did. */
export async function runDemoAgents(
  tracer: Tracer,
  subscribe: (sink: { onLoopEvent(e: LoopEvent): void; onAbort(e: LoopAbortEvent): void }) => void,
): Promise<AgentReport[]> {
  const reports: AgentReport[] = [];
  for (const agent of DEMO_AGENTS) {
    const lines: string[] = [];
    let call = 0;
    let executed = 0;
    let outcome: AgentReport['outcome'] = 'finished';
    subscribe({
      onLoopEvent: (e) =>
        lines.push(
          `call ${call}: ${e.level.toUpperCase()} ${e.detector} (count ${e.count}) on ${e.toolName}${e.pairedToolName ? ` / ${e.pairedToolName}` : ''}\n      ${e.message}`,
        ),
      onAbort: (e) =>
        lines.push(`call ${call}: ABORT ${e.code} (count ${e.count}) on ${e.toolName}\n      ${e.message}`),
    });
    try {
      await traceRun(tracer, { runId: `demo-${agent.id}`, agentId: agent.id }, async ({ signal }) => {
        for (let i = 0; i < agent.maxSteps && !signal.aborted; i += 1) {
          if (agent.compactAfterStep === i) {
            lines.push(`call ${call}: (context overflow → auto-compaction → retry)`);
            markCompactionRetry(tracer);
          }
          const { tool, args, run } = agent.step(i);
          call += 1;
          const result = await traceToolCall(tracer, { name: tool, args, callId: `${agent.id}-${call}` }, () => {
            executed += 1;
            return run();
          }).catch((error: unknown) => ({ error }));
          const note = systemNoteIn(result);
          if (note) lines.push(`call ${call}: the tool ran; the model got its result with the note ${note}`);
          if (isBlocked(result)) {
            const text = (result as { content: Array<{ text: string }> }).content[0].text;
            const last = text.slice(text.lastIndexOf('\n') + 1);
            if ((result as { terminate?: unknown }).terminate === true) {
              lines.push(`call ${call}: the tool did not run; the model got "${last}" (terminate: true)`);
              return;
            }
            lines.push(`call ${call}: the tool did not run; the model got the recovery turn: "${last}"`);
            if (agent.ignoresRecovery) continue;
            outcome = 'stopped by a block';
            return;
          }
        }
      });
    } catch (error) {
      const name = (error as Error).name;
      outcome = name === 'ToolLoopBlockedError' ? 'ended by the second critical' : 'aborted';
      lines.push(`run rejected with ${name}: code=${(error as { code?: string }).code}`);
    }
    reports.push({ id: agent.id, calls: call, executed, lines, outcome });
  }
  return reports;
}

/** OpenClaw's system note on a result the model got (a string, or OpenClaw's content items). */
function systemNoteIn(result: unknown): string | undefined {
  const texts =
    typeof result === 'string'
      ? [result]
      : ((result as { content?: Array<{ text?: unknown }> } | undefined)?.content ?? []).map((item) => item.text);
  for (const text of texts) {
    if (typeof text !== 'string') continue;
    const at = text.indexOf('[System note:');
    if (at >= 0) return text.slice(at);
  }
  return undefined;
}

function isBlocked(result: unknown): boolean {
  const details = (result as { details?: { status?: unknown; deniedReason?: unknown } } | undefined)?.details;
  return details?.status === 'blocked' && details.deniedReason === 'tool-loop';
}

async function main(): Promise<void> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME ?? 'tool-loop-guard-demo',
  });
  // The demo is over in a second: one export at shutdown carries the final counts, so the
  // periodic interval only matters for a run that is kept alive.
  const meterProvider = endpoint
    ? new MeterProvider({
        resource,
        readers: [
          new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: 60_000 }),
        ],
      })
    : undefined;
  let sink: { onLoopEvent(e: LoopEvent): void; onAbort(e: LoopAbortEvent): void } | undefined;
  const processor = await ToolLoopSpanProcessor.create({
    config: DEMO_CONFIG,
    meterProvider,
    onLoopEvent: (event) => sink?.onLoopEvent(event),
    onAbort: (event) => sink?.onAbort(event),
  });
  const processors: SpanProcessor[] = [processor];
  if (endpoint) processors.push(new BatchSpanProcessor(new OTLPTraceExporter()));
  const provider = new BasicTracerProvider({ resource, spanProcessors: processors });
  trace.setGlobalTracerProvider(provider);

  console.log('tool-loop-guard demo: scripted agents, OpenClaw loop detection on their tool-call spans');
  console.log(`config: ${JSON.stringify(DEMO_CONFIG)}\n`);
  const reports = await runDemoAgents(provider.getTracer('tool-loop-guard-demo'), (s) => (sink = s));
  for (const [index, report] of reports.entries()) {
    const agent = DEMO_AGENTS[index];
    console.log(`▶ ${report.id}: ${agent.story}`);
    for (const line of report.lines) console.log(`    ${line}`);
    console.log(`  → ${report.outcome} after ${report.calls} calls (${report.executed} executed)\n`);
  }
  await provider.forceFlush();
  await provider.shutdown();
  await meterProvider?.shutdown();
  console.log(
    endpoint
      ? `spans and the tool_loop.events counter exported to ${endpoint}`
      : 'set OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 to export the spans (see docs/observability.md)',
  );
}

if (process.argv[1] && /demo\.(js|ts)$/.test(process.argv[1])) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
