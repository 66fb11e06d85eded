/**
 * Text from an input (tool names, run ids, messages, file names) fit for a terminal: every
 * character a terminal acts on instead of printing — C0 controls (ESC, BEL, CR, LF, TAB…), DEL,
 * C1 controls, and the bidirectional embeddings, overrides and isolates — written as an escape
 * (`\n`, `\r`, `\t`, `\x1b`, `\u202e`), so a trace can neither drive the terminal (retitle it,
 * clear it, move the cursor) nor forge report lines. Other text is returned as it is.
 */
export function printable(text: string): string {
  let out: string | undefined;
  let from = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (!actsOnTerminal(code)) continue;
    out = (out ?? '') + text.slice(from, i) + escapeOf(code);
    from = i + 1;
  }
  return out === undefined ? text : out + text.slice(from);
}

function actsOnTerminal(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

function escapeOf(code: number): string {
  if (code === 0x0a) return '\\n';
  if (code === 0x0d) return '\\r';
  if (code === 0x09) return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
