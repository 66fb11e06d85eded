import { isRecord } from '../../util/is-record.js';

/**
 * The fields of a LangChain message serialised by an instrumentation, as it records a tool run's
 * `ToolMessage`: LangChain.js's constructor form (`{"lc":1,"type":"constructor","id":[...],
 * "kwargs":{...}}`) or LangChain Python's `message_to_dict` form (`{"type":"tool","data":{...,
 * "type":"tool"}}`, as OpenInference for Python writes it). `content` is the tool's result, `name`
 * the tool and `tool_call_id` the per-call id (which must not reach a hash, or every call would
 * differ). `undefined` for anything else.
 */
export function serialisedMessageKwargs(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  if (value.lc === 1 && value.type === 'constructor' && isRecord(value.kwargs)) return value.kwargs;
  const { data } = value;
  return typeof value.type === 'string' && isRecord(data) && data.type === value.type && 'content' in data
    ? data
    : undefined;
}
