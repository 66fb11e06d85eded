/**
 * Longest unknown-tool name kept, in characters. The name comes from error text a tool or a
 * remote service wrote; real tool names are far shorter, and a longer one is cut here so that
 * it cannot fill messages, warning keys and logs.
 */
export const MAX_UNKNOWN_TOOL_NAME_LENGTH = 128;

const UNKNOWN_TOOL = new RegExp(`unknown tool[:\\s]+["'\`]?([a-z0-9_.-]{1,${MAX_UNKNOWN_TOOL_NAME_LENGTH}})`, 'i');
const TOOL_NOT_AVAILABLE = /tool\s+["'`]?([a-z0-9_.-]+)["'`]?\s+(?:not found|is not available)/i;

/**
 * Extracts the name of the unavailable tool an error text complains about, as OpenClaw
 * does: first `unknown tool`, then `:` or whitespace, an optional
 * quote and a name of `[a-z0-9_.-]`; failing that, `tool <name> not found` /
 * `tool <name> is not available` (name optionally quoted). Case-insensitive; the name is
 * returned lowercased, cut to {@link MAX_UNKNOWN_TOOL_NAME_LENGTH} characters and copied
 * (see {@link boundedToolName}).
 *
 * @returns The lowercased tool name, or `undefined` when neither pattern matches.
 */
export function extractUnknownToolName(errorText: string): string | undefined {
  const match = UNKNOWN_TOOL.exec(errorText) ?? TOOL_NOT_AVAILABLE.exec(errorText);
  return boundedToolName(match?.[1]?.toLowerCase());
}

/**
 * A tool name taken from tool output, fit to be kept: at most
 * {@link MAX_UNKNOWN_TOOL_NAME_LENGTH} characters, and a string of its own. A regex match or a
 * `slice` of a long text is, in V8, a view that keeps the whole text alive (a 5 MB error, for
 * as long as the run's history holds the name); joining its characters builds a fresh string.
 */
export function boundedToolName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  return name.slice(0, MAX_UNKNOWN_TOOL_NAME_LENGTH).split('').join('');
}
