import { boundedText, ownCopy } from '../../util/bounded-text.js';

const UNKNOWN_TOOL = /unknown tool[:\s]+["'`]?([a-z0-9_.-]+)/i;
const TOOL_NOT_AVAILABLE = /tool\s+["'`]?([a-z0-9_.-]+)["'`]?\s+(?:not found|is not available)/i;

/**
 * Extracts the name of the unavailable tool an error text complains about, as OpenClaw
 * does: first `unknown tool`, then `:` or whitespace, an optional
 * quote and a name of `[a-z0-9_.-]`; failing that, `tool <name> not found` /
 * `tool <name> is not available` (name optionally quoted). Case-insensitive; the name is
 * returned lowercased, bounded and copied (see {@link boundedToolName}).
 *
 * @returns The lowercased tool name, or `undefined` when neither pattern matches.
 */
export function extractUnknownToolName(errorText: string): string | undefined {
  const match = UNKNOWN_TOOL.exec(errorText) ?? TOOL_NOT_AVAILABLE.exec(errorText);
  return boundedToolName(match?.[1]?.toLowerCase());
}

/**
 * A tool name taken from tool output, fit to be kept: bounded as every text taken from a span
 * (`boundedText`: at most `MAX_KEPT_TEXT_LENGTH` characters, a longer one cut and suffixed with its
 * digest), and a string of its own: a regex match of a long text is, in V8, a view that keeps
 * the whole text alive (a 5 MB error, for as long as the run's history holds the name).
 */
export function boundedToolName(name: string | undefined): string | undefined {
  return name === undefined ? undefined : ownCopy(boundedText(name));
}
