/**
 * The naive baseline: what OpenClaw's `tool-loop-detection.ts` does, wrapped in the same
 * SpanProcessor shape as ours. Per call it
 * - parses the argument / result JSON text (as ours must),
 * - hashes params and outcome as SHA-256 (node:crypto) hex over a recursive stable JSON string
 *   (`stableStringify`, keys sorted, the whole text materialised),
 * - scans the whole history array for every quantity (no-progress streak, recent count,
 *   ping-pong tail, unknown-tool streak, pending record lookup), and trims it with
 *   `Array#shift`.
 * It is a cost model, not a second implementation of the spec: messages and suppression are
 * simplified, detection order and thresholds are OpenClaw's defaults.
 */
import { createHash } from 'node:crypto';
import { trace, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

interface NaiveRecord {
  toolName: string;
  argsHash: string;
  toolCallId?: string;
  resultHash?: string;
  timestamp: number;
}

interface NaiveRun {
  history: NaiveRecord[];
  warned: Map<string, number>;
}

interface NaiveToolSpan {
  runId: string;
  toolName: string;
  toolCallId?: string;
  argsHash?: string;
  params?: unknown;
  blocked: boolean;
}

const HISTORY_SIZE = 30;
const WARNING = 10;
const CRITICAL = 20;
const GLOBAL = 30;

function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(obj[k])}`).join(',')}}`;
}

function digestStable(value: unknown): string {
  return createHash('sha256').update(stableStringify(value)).digest('hex');
}

function parse(text: unknown): unknown {
  if (typeof text !== 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function outcomeHash(result: unknown): string | undefined {
  if (result === undefined) return undefined;
  if (result && typeof result === 'object' && !Array.isArray(result)) {
    const { content, details } = result as { content?: unknown; details?: unknown };
    if (Array.isArray(content) || (details && typeof details === 'object')) {
      const text = Array.isArray(content)
        ? (content as unknown[])
            .filter((e): e is { type: string; text: string } => isTextPart(e))
            .map((e) => e.text)
            .join('\n')
            .trim()
        : '';
      return digestStable({ details: details ?? {}, text });
    }
  }
  return digestStable(result);
}

function noProgressStreak(
  history: NaiveRecord[],
  toolName: string,
  argsHash: string,
): { count: number; latest?: string } {
  let count = 0;
  let latest: string | undefined;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const r = history[i];
    if (r.toolName !== toolName || r.argsHash !== argsHash || r.resultHash === undefined) continue;
    if (latest === undefined) latest = r.resultHash;
    else if (r.resultHash !== latest) break;
    count += 1;
  }
  return { count, latest };
}

function pingPongCount(history: NaiveRecord[], argsHash: string): number {
  const last = history[history.length - 1];
  if (!last) return 0;
  let other: string | undefined;
  for (let i = history.length - 2; i >= 0; i -= 1) {
    if (history[i].argsHash !== last.argsHash) {
      other = history[i].argsHash;
      break;
    }
  }
  if (other === undefined || other !== argsHash) return 0;
  let count = 0;
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const expected = count % 2 === 0 ? last.argsHash : other;
    if (history[i].argsHash !== expected) break;
    count += 1;
  }
  return count + 1;
}

export class NaiveLoopSpanProcessor implements SpanProcessor {
  private readonly runs = new Map<string, NaiveRun>();
  private readonly spanRun = new WeakMap<object, string>();
  private readonly toolSpans = new WeakMap<object, NaiveToolSpan>();
  verdicts = 0;

  onStart(span: Span, parentContext: Context): void {
    const attrs = span.attributes;
    const parent = trace.getSpan(parentContext);
    const own = attrs['tool_loop.run_id'];
    const runId = typeof own === 'string' ? own : ((parent && this.spanRun.get(parent)) ?? span.spanContext().traceId);
    this.spanRun.set(span, runId);
    const toolName = attrs['gen_ai.tool.name'];
    if (typeof toolName !== 'string') return;
    const state: NaiveToolSpan = {
      runId,
      toolName,
      toolCallId: attrs['gen_ai.tool.call.id'] as string | undefined,
      blocked: false,
    };
    this.toolSpans.set(span, state);
    state.params = parse(attrs['gen_ai.tool.call.arguments']);
    state.argsHash = `${toolName}:${digestStable(state.params)}`;
    const run = this.run(runId);
    const h = run.history;
    // OpenClaw's detectToolCallLoop: every quantity is a scan of the whole history.
    const streak = noProgressStreak(h, toolName, state.argsHash);
    const recent = h.filter((r) => r.toolName === toolName && r.argsHash === state.argsHash).length;
    const pingPong = pingPongCount(h, state.argsHash);
    let unknown = 0;
    for (let i = h.length - 1; i >= 0 && h[i].toolName === toolName && h[i].resultHash?.startsWith('error:'); i -= 1)
      unknown += 1;
    let level: string | undefined;
    if (streak.count >= GLOBAL || streak.count >= CRITICAL) level = 'critical';
    else if (pingPong >= WARNING || recent >= WARNING || unknown >= WARNING) level = 'warning';
    if (level === 'critical') {
      state.blocked = true;
      this.verdicts += 1;
      span.addEvent('tool_loop.blocked', { 'tool_loop.count': streak.count });
      return;
    }
    if (level === 'warning') {
      const key = `${runId}:${toolName}:${state.argsHash}`;
      const bucket = Math.floor(Math.max(recent, pingPong) / WARNING);
      if ((run.warned.get(key) ?? 0) < bucket) {
        run.warned.set(key, bucket);
        this.verdicts += 1;
        span.addEvent('tool_loop.warning', { 'tool_loop.count': Math.max(recent, pingPong) });
      }
    }
    h.push({ toolName, argsHash: state.argsHash, toolCallId: state.toolCallId, timestamp: Date.now() });
    if (h.length > HISTORY_SIZE) h.shift();
  }

  onEnding(span: Span): void {
    const state = this.toolSpans.get(span);
    if (!state || state.blocked || state.argsHash === undefined) return;
    const resultHash = outcomeHash(parse(span.attributes['gen_ai.tool.call.result']));
    if (resultHash === undefined) return;
    const h = this.run(state.runId).history;
    for (let i = h.length - 1; i >= 0; i -= 1) {
      const r = h[i];
      if (
        r.toolName === state.toolName &&
        r.argsHash === state.argsHash &&
        r.resultHash === undefined &&
        r.toolCallId === state.toolCallId
      ) {
        r.resultHash = resultHash;
        return;
      }
    }
    h.push({
      toolName: state.toolName,
      argsHash: state.argsHash,
      toolCallId: state.toolCallId,
      resultHash,
      timestamp: Date.now(),
    });
    if (h.length > HISTORY_SIZE) h.shift();
  }

  onEnd(span: ReadableSpan): void {
    const runId = this.spanRun.get(span);
    if (runId !== undefined && span.attributes['tool_loop.run_id'] !== undefined) this.runs.delete(runId);
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    this.runs.clear();
    return Promise.resolve();
  }

  private run(runId: string): NaiveRun {
    let run = this.runs.get(runId);
    if (!run) {
      run = { history: [], warned: new Map() };
      this.runs.set(runId, run);
    }
    return run;
  }
}

function isTextPart(value: unknown): value is { type: string; text: string } {
  const part = value as { type?: unknown; text?: unknown } | null | undefined;
  return !!part && typeof part.type === 'string' && typeof part.text === 'string';
}
