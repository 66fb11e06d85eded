/**
 * `serve` reads protobuf requests straight from the decoded messages: the spans, problems and
 * rejections must be those of the request's OTLP JSON shape read by the analyzer's OTLP reader,
 * down to the edge cases (ids of the wrong length or all zero, missing times and keys, nested,
 * 64-bit and bytes values, statuses and events).
 */
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import type { DecodedSpan } from '../../../src/cli/readers/types.js';
import { OtlpProtobuf, OTLP_TRACE_MESSAGES } from '../../../src/cli/serve/otlp-protobuf.js';
import { jsonSpanSource, type SpanSource } from '../../../src/cli/serve/span-intake.js';

const Request = protobuf.Root.fromJSON(OTLP_TRACE_MESSAGES).lookupType('ExportTraceServiceRequest');

const hex = (text: string) => Buffer.from(text, 'hex');
const TRACE = hex('0af7651916cd43dd8448eb211c80319c');
const str = (key: string, value: string) => ({ key, value: { stringValue: value } });
function nested(depth: number): unknown {
  let value: unknown = { stringValue: 'bottom' };
  for (let i = 0; i < depth; i += 1) value = { arrayValue: { values: [value] } };
  return value;
}

function request(): Uint8Array {
  return Request.encode(
    Request.fromObject({
      resourceSpans: [
        {
          resource: { attributes: [str('service.name', 'agent'), { key: 'deep', value: nested(5) }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: TRACE,
                  spanId: hex('b7ad6b7169203331'),
                  name: 'invoke_agent',
                  startTimeUnixNano: '1700000000000000123',
                  endTimeUnixNano: '1700000000900000999',
                },
                {
                  traceId: TRACE,
                  spanId: hex('00f067aa0ba902b7'),
                  parentSpanId: hex('b7ad6b7169203331'),
                  name: 'execute_tool read',
                  startTimeUnixNano: '1700000000100000000',
                  attributes: [
                    str('gen_ai.tool.name', 'read'),
                    { key: 'count', value: { intValue: '-9007199254740993' } },
                    { key: 'ratio', value: { doubleValue: 0.25 } },
                    { key: 'ok', value: { boolValue: false } },
                    { key: 'empty', value: { stringValue: '' } },
                    { key: 'raw', value: { bytesValue: hex('cafe') } },
                    { key: 'list', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: 2 }] } } },
                    { key: 'map', value: { kvlistValue: { values: [str('x', 'y'), { key: 'none' }] } } },
                    { key: 'deep', value: nested(5) },
                    { key: 'unset', value: {} },
                    { value: { stringValue: 'no key' } },
                  ],
                  events: [{ name: 'exception', attributes: [str('exception.message', 'boom')] }, {}],
                  status: { code: 2, message: 'failed' },
                },
                { traceId: TRACE, spanId: hex('0000000000000000'), name: 'zero id', startTimeUnixNano: '5' },
                { traceId: TRACE, spanId: hex('1111111111111111'), name: 'no start' },
                { traceId: hex('abcdef'), spanId: hex('2222222222222222'), name: 'short trace id' },
                {
                  traceId: TRACE,
                  spanId: hex('3333333333333333'),
                  parentSpanId: hex('0000000000000000'),
                  name: 'zero parent',
                  startTimeUnixNano: '999999999999999',
                  status: {},
                },
                { traceId: TRACE, spanId: hex('4444'), name: 'short span id' },
                { traceId: TRACE, spanId: hex('5555555555555555'), parentSpanId: hex('55'), name: 'short parent' },
              ],
            },
            {},
          ],
        },
        {
          scopeSpans: [
            { spans: [{ traceId: TRACE, spanId: hex('6666666666666666'), startTimeUnixNano: '1000000000000000' }] },
          ],
        },
      ],
    }),
  ).finish();
}

function readAll(source: SpanSource) {
  const spans: DecodedSpan[] = [];
  const problems: string[] = [];
  source.read({ span: (span) => spans.push(span), problem: (message) => problems.push(message) });
  return { count: source.count, rejected: source.rejected, problem: source.problem, spans, problems };
}

describe('OtlpProtobuf.readTraceRequest', () => {
  const codec = new OtlpProtobuf();

  it('reads the spans, problems and rejections the OTLP JSON shape of the request gives', () => {
    const bytes = request();
    const viaJson = codec.decodeTraceRequest(bytes);
    const fromJson = readAll({
      ...jsonSpanSource(viaJson.document),
      rejected: viaJson.rejected,
      problem: viaJson.problem,
    });
    const direct = readAll(codec.readTraceRequest(bytes));
    expect(direct).toEqual(fromJson);
    // The cases are all there: three spans left out for their ids' lengths, two skipped by the reader.
    expect(direct.rejected).toBe(3);
    expect(direct.problem).toBe('span "short trace id": trace_id must be 16 bytes');
    expect(direct.spans.map((span) => span.view.name)).toEqual([
      'invoke_agent',
      'execute_tool read',
      'zero parent',
      '',
    ]);
    expect(direct.problems.filter((problem) => problem.includes('skipped'))).toHaveLength(2);
    const [agent, tool, zeroParent, last] = direct.spans;
    expect([agent.startUs, agent.endUs, zeroParent.startUs, last.startUs]).toEqual([
      1_700_000_000_000_000, 1_700_000_000_900_000, 999_999_999_999.999, 1_000_000_000_000,
    ]);
    expect(zeroParent.parentSpanId).toBeUndefined();
    expect(tool.view.attributes).toEqual({
      'gen_ai.tool.name': 'read',
      count: -9007199254740992,
      ratio: 0.25,
      ok: false,
      empty: '',
      raw: hex('cafe').toString('base64'),
      list: ['a', 2],
      map: { x: 'y' },
      deep: [[[[['bottom']]]]],
    });
    expect(tool.view.status).toEqual({ code: 2, message: 'failed' });
    expect(zeroParent.view.status).toEqual({ code: 0 });
    expect(last.process).toBe('(no resource)');
  });

  it('takes a request without spans', () => {
    expect(readAll(codec.readTraceRequest(new Uint8Array(0)))).toEqual({
      count: 0,
      rejected: 0,
      problem: undefined,
      spans: [],
      problems: [],
    });
  });
});
