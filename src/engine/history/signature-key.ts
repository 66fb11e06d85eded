/** Whether `argsHash` is `<toolName>:<digest without ':'>`, so that the tool name can be read back from it. */
function namesTool(argsHash: string, toolName: string): boolean {
  if (typeof argsHash !== 'string' || typeof toolName !== 'string') return false;
  const n = toolName.length;
  return argsHash.charCodeAt(n) === 0x3a && argsHash.startsWith(toolName) && argsHash.indexOf(':', n + 1) < 0;
}

/**
 * The key of a (tool, args) signature (OpenClaw's detectors compare both): the args hash itself when it
 * names its tool (`<toolName>:…`, every hash this package computes), else tool and hash joined,
 * so that a pre-computed hash shared by two tools still gives two signatures.
 */
export function signatureKey(toolName: string, argsHash: string): string {
  return namesTool(argsHash, toolName) ? argsHash : joinedKey(toolName, argsHash);
}

/**
 * Tool and hash joined by NUL, each escaped so that neither NUL nor `:` is left in them: the join
 * is unambiguous whatever the two contain (`read\0x` + `h` ≠ `read` + `x\0h`), and the key, with
 * no `:`, never equals a hash that names its tool (those always contain one).
 */
function joinedKey(toolName: string, argsHash: string): string {
  return `${escapeKeyPart(toolName)}\u0000${escapeKeyPart(argsHash)}`;
}

function escapeKeyPart(text: string): string {
  if (!text.includes('\\') && !text.includes(':') && !text.includes('\u0000')) return text;
  // The escape character first, so that the escapes written next stay unambiguous.
  return text.replaceAll('\\', '\\\\').replaceAll(':', '\\c').replaceAll('\u0000', '\\0');
}
