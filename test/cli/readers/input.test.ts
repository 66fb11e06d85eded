import { describe, expect, it } from 'vitest';
import { normalizeId } from '../../../src/cli/readers/ids.js';
import { detectFormat, readInputFile } from '../../../src/cli/readers/input.js';
import type { DecodedSpan, InputFormat, TrajectoryCall } from '../../../src/cli/readers/types.js';
import { fixtureDir, jsonl, otlpDocument, type FixtureSpan } from '../helpers.js';

async function read(file: string, format?: InputFormat) {
  const spans: DecodedSpan[] = [];
  const calls: TrajectoryCall[] = [];
  const problems: Array<{ line?: number; message: string }> = [];
  let detected: string | undefined;
  let layout: string | undefined;
  let empty = false;
  await readInputFile(file, format, {
    format(kind, how) {
      detected = kind;
      layout = how;
    },
    span: (span) => spans.push(span),
    call: (call) => calls.push(call),
    problem: (message, line) => problems.push({ line, message }),
    empty: () => {
      empty = true;
    },
  });
  return { spans, calls, problems, detected, layout, empty };
}

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const SPANS: FixtureSpan[] = [
  { spanId: 'b7ad6b7169203331', name: 'invoke_agent', start: 0, end: 100, attributes: { 'tool_loop.run_id': 'run-1' } },
  {
    spanId: '00f067aa0ba902b7',
    parentSpanId: 'b7ad6b7169203331',
    name: 'execute_tool read',
    start: 10,
    end: 20,
    attributes: {
      'gen_ai.tool.name': 'read',
      'gen_ai.tool.call.arguments': '{"path":"/a"}',
      'tool_loop.poll': false,
      'x.count': 3,
      'x.list': ['a', 'b'],
    },
    error: 'boom',
  },
];

describe('OTLP JSON reader', () => {
  it('reads one pretty-printed ExportTraceServiceRequest document', async () => {
    const fx = fixtureDir();
    try {
      const file = fx.write('trace.json', otlpDocument(TRACE, SPANS));
      const { spans, problems, detected, layout } = await read(file);
      expect(problems).toEqual([]);
      expect(detected).toBe('otlp');
      expect(layout).toBe('document');
      expect(spans).toHaveLength(2);
      const tool = spans[1];
      expect(tool).toMatchObject({
        traceId: TRACE,
        spanId: '00f067aa0ba902b7',
        parentSpanId: 'b7ad6b7169203331',
        service: 'agent',
      });
      expect(tool.endUs - tool.startUs).toBe(10_000);
      expect(tool.view.attributes).toEqual({
        'gen_ai.tool.name': 'read',
        'gen_ai.tool.call.arguments': '{"path":"/a"}',
        'tool_loop.poll': false,
        'x.count': 3,
        'x.list': ['a', 'b'],
      });
      expect(tool.view.status).toEqual({ code: 2, message: 'boom' });
    } finally {
      fx.cleanup();
    }
  });

  it('reads one object per line (collector file exporter), base64 ids and Tempo batches', async () => {
    const fx = fixtureDir();
    try {
      const first = otlpDocument(TRACE, SPANS.slice(0, 1)) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>;
      };
      const second = otlpDocument(TRACE, SPANS.slice(1)) as typeof first;
      const span = second.resourceSpans[0].scopeSpans[0].spans[0];
      span.traceId = Buffer.from(TRACE, 'hex').toString('base64');
      span.spanId = Buffer.from('00f067aa0ba902b7', 'hex').toString('base64');
      span.parentSpanId = Buffer.from('b7ad6b7169203331', 'hex').toString('base64');
      span.status = { code: 'STATUS_CODE_ERROR', message: 'boom' };
      const tempo = { batches: second.resourceSpans };
      const file = fx.write('traces.json', `${JSON.stringify(first)}\n${JSON.stringify(tempo)}\n`);
      const { spans, problems, detected, layout } = await read(file);
      expect(problems).toEqual([]);
      expect([detected, layout]).toEqual(['otlp', 'lines']);
      expect(spans.map((s) => [s.traceId, s.spanId, s.parentSpanId])).toEqual([
        [TRACE, 'b7ad6b7169203331', undefined],
        [TRACE, '00f067aa0ba902b7', 'b7ad6b7169203331'],
      ]);
      expect(spans[1].view.status).toEqual({ code: 2, message: 'boom' });
    } finally {
      fx.cleanup();
    }
  });
});

describe('Jaeger JSON reader', () => {
  it('reads a Jaeger UI export with tags, logs, references and processes', async () => {
    const fx = fixtureDir();
    try {
      const file = fx.write('jaeger.json', {
        data: [
          {
            traceID: '8448eb211c80319c',
            spans: [
              {
                traceID: '8448eb211c80319c',
                spanID: 'aa01',
                operationName: 'run',
                references: [],
                startTime: 1_700_000_000_000_000,
                duration: 500,
                tags: [],
                logs: [],
                processID: 'p1',
              },
              {
                traceID: '8448eb211c80319c',
                spanID: 'aa02',
                operationName: 'execute_tool search',
                references: [{ refType: 'CHILD_OF', traceID: '8448eb211c80319c', spanID: 'aa01' }],
                startTime: 1_700_000_000_000_100,
                duration: 50,
                tags: [
                  { key: 'gen_ai.tool.name', type: 'string', value: 'search' },
                  { key: 'compaction.retry', type: 'bool', value: true },
                  { key: 'n', type: 'int64', value: 7 },
                  { key: 'otel.status_code', type: 'string', value: 'ERROR' },
                  { key: 'otel.status_description', type: 'string', value: 'Tool web not found' },
                ],
                logs: [
                  {
                    timestamp: 1_700_000_000_000_120,
                    fields: [
                      { key: 'event', type: 'string', value: 'exception' },
                      { key: 'exception.message', type: 'string', value: 'x' },
                    ],
                  },
                ],
                processID: 'p1',
              },
            ],
            processes: { p1: { serviceName: 'agent', tags: [{ key: 'host', type: 'string', value: 'h' }] } },
          },
        ],
      });
      const { spans, problems, detected } = await read(file);
      expect(problems).toEqual([]);
      expect(detected).toBe('jaeger');
      expect(spans).toHaveLength(2);
      expect(spans[1]).toMatchObject({
        traceId: '00000000000000008448eb211c80319c',
        spanId: '000000000000aa02',
        parentSpanId: '000000000000aa01',
        service: 'agent',
        startUs: 1_700_000_000_000_100,
        endUs: 1_700_000_000_000_150,
      });
      expect(spans[1].view.attributes).toMatchObject({ 'gen_ai.tool.name': 'search', 'compaction.retry': true, n: 7 });
      expect(spans[1].view.status).toEqual({ code: 2, message: 'Tool web not found' });
      expect(spans[1].view.events).toEqual([{ name: 'exception', attributes: { 'exception.message': 'x' } }]);
      expect(spans[0].process).toBe(spans[1].process);
    } finally {
      fx.cleanup();
    }
  });
});

describe('readers, hostile values', () => {
  it('leave out Jaeger tag values that are no scalars, and read a key __proto__ as any other', async () => {
    const fx = fixtureDir();
    try {
      const deep: unknown[] = [];
      let inner = deep;
      for (let i = 0; i < 100; i += 1) inner.push((inner = []));
      const tags = [
        { key: 'gen_ai.tool.name', type: 'string', value: 'search' },
        { key: 'nested', type: 'string', value: deep },
        { key: '__proto__', type: 'string', value: 'x' },
      ];
      const span = { traceID: 'ab', spanID: 'cd', operationName: 'execute_tool search', startTime: 1, tags };
      const file = fx.write('jaeger.json', { data: [{ traceID: 'ab', spans: [span] }] });
      const { spans, problems } = await read(file);
      expect(problems).toEqual([]);
      expect(Object.entries(spans[0].view.attributes)).toEqual([
        ['gen_ai.tool.name', 'search'],
        ['__proto__', 'x'],
      ]);
    } finally {
      fx.cleanup();
    }
  });
});

describe('trajectory JSONL reader', () => {
  it('reads one call per line and reports malformed lines with their line number, then continues', async () => {
    const fx = fixtureDir();
    try {
      const file = fx.write(
        'run.jsonl',
        [
          JSON.stringify({ step: 1, tool: 'search', args: { q: 'a' }, result: 'r1' }),
          '{"step": 2, "tool": "search", "args": {"q": ',
          '',
          JSON.stringify({ step: 3, args: {} }),
          JSON.stringify({ step: 4, tool: 'edit', args: { c: 1 }, result: 'no', error: true, synthetic: true }),
        ].join('\n'),
      );
      const { calls, problems, detected } = await read(file);
      expect(detected).toBe('trajectory');
      expect(calls.map((c) => [c.line, c.step, c.tool, c.error, c.synthetic])).toEqual([
        [1, 1, 'search', false, false],
        [5, 4, 'edit', true, true],
      ]);
      expect(problems).toHaveLength(2);
      expect(problems[0]).toMatchObject({ line: 2 });
      expect(problems[0].message).toMatch(/^malformed JSON line/);
      expect(problems[1]).toEqual({
        line: 4,
        message: 'malformed trajectory line: missing "tool" (a non-empty string)',
      });
    } finally {
      fx.cleanup();
    }
  });

  it('treats an empty file as empty (a run without calls when the format is forced)', async () => {
    const fx = fixtureDir();
    try {
      const file = fx.write('empty.jsonl', '');
      expect(await read(file)).toMatchObject({ empty: true, problems: [], detected: undefined });
      expect(await read(file, 'trajectory')).toMatchObject({ empty: false, problems: [], detected: 'trajectory' });
    } finally {
      fx.cleanup();
    }
  });
});

describe('format detection', () => {
  it('tells the formats apart by shape', () => {
    expect(detectFormat({ resourceSpans: [] })).toBe('otlp');
    expect(detectFormat({ resource_spans: [] })).toBe('otlp');
    expect(detectFormat({ batches: [] })).toBe('otlp');
    expect(detectFormat({ trace: { resourceSpans: [] } })).toBe('otlp');
    expect(detectFormat({ data: [{ traceID: 'a', spans: [] }] })).toBe('jaeger');
    expect(detectFormat({ step: 1, tool: 'x', args: {} })).toBe('trajectory');
    expect(detectFormat({ trajectories: [] })).toBe('index');
    expect(detectFormat({ hello: 1 })).toBeUndefined();
  });

  it('reports unknown formats and unreadable files without throwing', async () => {
    const fx = fixtureDir();
    try {
      const unknown = await read(fx.write('x.json', { hello: 'world' }));
      expect(unknown.problems).toHaveLength(1);
      expect(unknown.problems[0].message).toMatch(/^unknown format/);
      const missing = await read(`${fx.dir}/nope.json`);
      expect(missing.problems).toEqual([{ line: undefined, message: 'cannot read: file not found' }]);
      const broken = await read(fx.write('broken.json', '{\n  "resourceSpans": [\n    oops\n  ]\n}'));
      expect(broken.problems).toHaveLength(1);
      expect(broken.problems[0].line).toBe(3);
      expect(broken.problems[0].message).toMatch(/^malformed JSON/);
    } finally {
      fx.cleanup();
    }
  });

  it('normalises hex and base64 ids', () => {
    expect(normalizeId('0AF7651916CD43DD8448EB211C80319C', 16)).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(normalizeId(Buffer.from('00f067aa0ba902b7', 'hex').toString('base64'), 8)).toBe('00f067aa0ba902b7');
    expect(normalizeId('', 8)).toBeUndefined();
    expect(normalizeId('0000000000000000', 8)).toBeUndefined();
    expect(normalizeId('aa02', 8, true)).toBe('000000000000aa02');
  });
});

describe('trajectory JSONL reader (line helper)', () => {
  it('jsonl helper writes one object per line', () => {
    expect(jsonl([{ a: 1 }, { b: 2 }])).toBe('{"a":1}\n{"b":2}\n');
  });
});
