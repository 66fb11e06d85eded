/**
 * Whether nothing but the hash of `toolName`'s successful result can depend on its text: it
 * holds none of OpenClaw's loop veto (`tool-loop`), a typed-error stamp (`typed_code`) and, for
 * a `write`, `changed` (a write that changed nothing), and no `\u` escape, which could spell any
 * of them. Each word is first looked for by a part of it that starts with a rare character
 * (`-loop`, `_code`, `ged`): `String#includes` stops at every occurrence of a pattern's first
 * character, and `t` and `c` are common in text.
 */
export function isHashOnlyResult(toolName: string, result: string): boolean {
  return !(
    result.includes('\\u') ||
    (result.includes('-loop') && result.includes('tool-loop')) ||
    (result.includes('_code') && result.includes('typed_code')) ||
    (toolName === 'write' && result.includes('ged') && result.includes('changed'))
  );
}
