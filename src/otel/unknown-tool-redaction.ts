import { MAX_KEPT_TEXT_LENGTH } from '../util/bounded-text.js';
import type { LoopVerdict } from '../engine/types.js';
import type { EngineLogger } from '../util/logger.js';

/** The `unknown_tool_repeat` warning key: `unknown-tool:<called tool>:<name from the error text>`. */
const KEY_PREFIX = 'unknown-tool:';

/**
 * `redactContent` for `unknown_tool_repeat`: its message and warning key name the unavailable
 * tool, a name taken from the error text the tool (or a remote service) wrote — content. A
 * short digest of it stands in (`unknown-tool-<8 hex>`, the same for the same name in one
 * process, so warnings still group), unless it is the called tool's own name, which is
 * exported anyway as `gen_ai.tool.name`. Other verdicts come back as they are.
 */
export function redactUnknownToolName(
  verdict: LoopVerdict,
  toolName: string,
  digestText: (text: string) => string,
): LoopVerdict {
  if (verdict.detector !== 'unknown_tool_repeat') return verdict;
  const prefix = `${KEY_PREFIX}${toolName}:`;
  if (!verdict.warningKey.startsWith(prefix)) return verdict;
  const name = verdict.warningKey.slice(prefix.length);
  if (name === toolName.toLowerCase()) return verdict;
  const named = `tool ${name} `;
  // OpenClaw's key says `unknown` when no name was found; its message then names the called tool.
  if (name === 'unknown' && !verdict.message.includes(named)) return verdict;
  const standIn = `unknown-tool-${digestText(name).slice(0, 8)}`;
  return {
    ...verdict,
    warningKey: `${prefix}${standIn}`,
    message: verdict.message.split(named).join(`tool ${standIn} `),
  };
}

/*
 * OpenClaw's `unknown_tool_repeat` message inside the guard's log lines (`Blocking <tool> due to
 * critical loop: …`). Names are bounded (`boundedText`), and so are the patterns: each try reads at
 * most a name's length ahead, so a line is scanned in time linear in its length, whatever it holds
 * (an unbounded lazy `.+?` read to the line's end at every occurrence of the phrase).
 */
const NAME = `.{1,${MAX_KEPT_TEXT_LENGTH}}?`;
const BLOCKING_LINE = new RegExp(`^Blocking (${NAME}) due to critical loop: `);
const UNAVAILABLE = new RegExp(`(attempted unavailable tool )(${NAME})( \\d{1,16} times\\.)`);

/**
 * The guard's log lines under `redactContent`: the same stand-in as {@link redactUnknownToolName}
 * for the unavailable tool's name in a block line, so `diag` never carries it either.
 */
export function redactingLogger(logger: EngineLogger, digestText: (text: string) => string): EngineLogger {
  const redact = (line: string): string => {
    const match = UNAVAILABLE.exec(line);
    if (!match) return line;
    const name = match[2];
    const toolName = BLOCKING_LINE.exec(line)?.[1];
    if (toolName !== undefined && name === toolName.toLowerCase()) return line;
    return line.replace(UNAVAILABLE, (_all, before: string, _name: string, after: string) => {
      return `${before}unknown-tool-${digestText(name).slice(0, 8)}${after}`;
    });
  };
  return {
    debug: (message) => logger.debug(redact(message)),
    info: (message) => logger.info(redact(message)),
    warn: (message) => logger.warn(redact(message)),
    error: (message) => logger.error(redact(message)),
  };
}
