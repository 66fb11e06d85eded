const UNKNOWN_TOOL = /unknown tool[:\s]+["'`]?([a-z0-9_.-]+)/i;
const TOOL_NOT_AVAILABLE = /tool\s+["'`]?([a-z0-9_.-]+)["'`]?\s+(?:not found|is not available)/i;

/**
 * Extracts the name of the unavailable tool an error text complains about, as OpenClaw
 * does: first `unknown tool`, then `:` or whitespace, an optional
 * quote and a name of `[a-z0-9_.-]`; failing that, `tool <name> not found` /
 * `tool <name> is not available` (name optionally quoted). Case-insensitive; the name is
 * returned lowercased.
 *
 * @returns The lowercased tool name, or `undefined` when neither pattern matches.
 */
export function extractUnknownToolName(errorText: string): string | undefined {
  const match = UNKNOWN_TOOL.exec(errorText) ?? TOOL_NOT_AVAILABLE.exec(errorText);
  return match?.[1]?.toLowerCase();
}
