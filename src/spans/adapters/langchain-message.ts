import { isRecord } from '../../util/is-record.js';

/**
 * The `kwargs` of a LangChain message serialised in its constructor form
 * (`{"lc":1,"type":"constructor","id":[...],"kwargs":{...}}`), as instrumentations record a
 * tool run's `ToolMessage`: `kwargs.content` is the tool's result, `kwargs.name` the tool and
 * `kwargs.tool_call_id` the per-call id (which must not reach a hash, or every call would
 * differ). `undefined` for anything else.
 */
export function serialisedMessageKwargs(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) && value.lc === 1 && value.type === 'constructor' && isRecord(value.kwargs)
    ? value.kwargs
    : undefined;
}
