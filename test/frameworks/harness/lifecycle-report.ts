import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AttributeValue } from '@opentelemetry/api';
import { keysAddedAfterStart, type SpanLifecycle } from './span-recorder.js';

const KIND = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

function short(value: AttributeValue | undefined): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = (text ?? '').replace(/\s+/g, ' ').replace(/\|/g, '\\|');
  return flat.length > 90 ? `${flat.slice(0, 87)}...` : flat;
}

function depthOf(span: SpanLifecycle, byId: Map<string, SpanLifecycle>): number {
  let depth = 0;
  for (let parent = span.parentSpanId; parent && byId.has(parent); parent = byId.get(parent)?.parentSpanId) depth += 1;
  return depth;
}

/**
 * A markdown report of recorded spans: one row per span (nesting by indentation, trace by
 * letter), then every attribute of the first span of each name with the step it appeared at.
 */
export function lifecycleReport(title: string, spans: readonly SpanLifecycle[]): string {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const traces = [...new Set(spans.map((span) => span.traceId))];
  const lines = [`## ${title}`, '', '| span | kind | trace | parent known | set at start | added later | events |', '|---|---|---|---|---|---|---|'];
  for (const span of spans) {
    const indent = '. '.repeat(depthOf(span, byId));
    const parent = span.parentSpanId === undefined ? 'root' : byId.has(span.parentSpanId) ? 'local' : 'remote/unknown';
    lines.push(
      `| ${indent}${span.name}${span.nameAtEnd !== undefined && span.nameAtEnd !== span.name ? ` → ${span.nameAtEnd}` : ''} | ${KIND[span.kind] ?? span.kind} | ${String.fromCharCode(65 + traces.indexOf(span.traceId))} | ${parent} | ${Object.keys(span.atStart).join(', ')} | ${keysAddedAfterStart(span).join(', ')} | ${span.eventNames.join(', ')} |`,
    );
  }
  const seen = new Set<string>();
  for (const span of spans) {
    if (seen.has(span.name)) continue;
    seen.add(span.name);
    lines.push('', `### ${span.name}`, '', '| attribute | at onStart | at onEnding | at onEnd |', '|---|---|---|---|');
    const keys = new Set([...Object.keys(span.atStart), ...Object.keys(span.atEnding ?? {}), ...Object.keys(span.atEnd ?? {})]);
    for (const key of keys) {
      lines.push(`| ${key} | ${short(span.atStart[key])} | ${short(span.atEnding?.[key])} | ${short(span.atEnd?.[key])} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function probeDir(): string {
  const dir = fileURLToPath(new URL('../.probe/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes a report under test/frameworks/.probe/ (ignored by git), the raw material of FINDINGS.md. */
export function writeProbeReport(file: string, report: string): void {
  writeFileSync(`${probeDir()}${file}`, report);
}

/** Appends to a report under test/frameworks/.probe/. */
export function appendProbeReport(file: string, text: string): void {
  appendFileSync(`${probeDir()}${file}`, text);
}
