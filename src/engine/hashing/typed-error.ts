import { boundedText } from '../../util/bounded-text.js';
import { isPlainObject } from '../../util/is-record.js';

/** A tool error contract's stamp: `typed_code=UPPER_SNAKE` in text, `"typed_code":"…"` in JSON (OpenClaw's pattern). */
const TYPED_CODE = /typed_code"?\s*[:=]\s*"?([A-Z0-9_]{2,64})/;

/**
 * The failure family of a call for the typed-error identity: the tool name, or for the
 * meta-tool `tool_call` `tool_call:<inner id>` (its `id`, `toolId` or `name` parameter);
 * `undefined` for `exec` (it has its own failure identity) and for a `tool_call` without an inner id.
 */
export function typedErrorFamily(toolName: string, params: unknown): string | undefined {
  if (toolName === 'exec') return undefined;
  if (toolName !== 'tool_call') return toolName;
  const source = isPlainObject(params) ? params : {};
  const inner = source.id ?? source.toolId ?? source.name;
  // Bounded as the texts read from spans are: the inner id comes from the call's arguments.
  return typeof inner === 'string' && inner.trim() !== '' ? boundedText(`${toolName}:${inner}`) : undefined;
}

/** The stored typed-error identity `<family>:<CODE>` of an outcome text, if it carries a stamp. */
export function readTypedError(toolName: string, params: unknown, text: string): string | undefined {
  const code = TYPED_CODE.exec(text)?.[1];
  if (code === undefined) return undefined;
  const family = typedErrorFamily(toolName, params);
  return family === undefined ? undefined : `${family}:${code}`;
}
