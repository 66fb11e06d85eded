import { describe, expect, it } from 'vitest';
import { extractUnknownToolName } from '../../../src/engine/hashing/unknown-tool.js';

describe('extractUnknownToolName', () => {
  it('scenario 34: extracts and lowercases the name', () => {
    expect(extractUnknownToolName('unknown tool: Foo.Bar')).toBe('foo.bar');
    expect(extractUnknownToolName("Tool 'x' is not available")).toBe('x');
    expect(extractUnknownToolName('permission denied')).toBeUndefined();
  });

  it('matches both patterns case-insensitively with optional quotes', () => {
    expect(extractUnknownToolName('Unknown tool: Foo.Bar')).toBe('foo.bar');
    expect(extractUnknownToolName('Error: UNKNOWN TOOL "web_search" requested')).toBe('web_search');
    expect(extractUnknownToolName('unknown tool my-tool')).toBe('my-tool');
    expect(extractUnknownToolName('Tool exec not found')).toBe('exec');
    expect(extractUnknownToolName('tool `Browser` NOT FOUND')).toBe('browser');
    expect(extractUnknownToolName('the tool "a.b" is not available here')).toBe('a.b');
  });

  it('prefers the unknown-tool pattern and rejects near misses', () => {
    expect(extractUnknownToolName('unknown tool: first; tool second not found')).toBe('first');
    expect(extractUnknownToolName('tool exec failed')).toBeUndefined();
    expect(extractUnknownToolName('unknown tool')).toBeUndefined();
    expect(extractUnknownToolName('')).toBeUndefined();
  });
});
