import { describe, expect, it } from 'vitest';
import { redactingLogger } from '../../src/otel/unknown-tool-redaction.js';
import type { EngineLogger } from '../../src/util/logger.js';

function recording(): { logger: EngineLogger; lines: string[] } {
  const lines: string[] = [];
  const log = (line: string) => void lines.push(line);
  return { logger: { debug: log, info: log, warn: log, error: log }, lines };
}

const digest = () => 'abcdef0123456789';

describe('redactingLogger', () => {
  it('replaces the unavailable tool named in a block line, and keeps the called tool’s own name', () => {
    const { logger, lines } = recording();
    const redacting = redactingLogger(logger, digest);
    redacting.error(
      'Blocking dispatch due to critical loop: CRITICAL: attempted unavailable tool secret_tool 3 times. Stop retrying that missing tool and answer without it.',
    );
    redacting.error(
      'Blocking dispatch due to critical loop: CRITICAL: attempted unavailable tool dispatch 3 times. Stop retrying that missing tool and answer without it.',
    );
    expect(lines[0]).toContain('attempted unavailable tool unknown-tool-abcdef01 3 times.');
    expect(lines[0]).not.toContain('secret_tool');
    expect(lines[1]).toContain('attempted unavailable tool dispatch 3 times.');
  });

  it('scans a line in time linear in its length, whatever it repeats', () => {
    const { logger, lines } = recording();
    const redacting = redactingLogger(logger, digest);
    // 324 KB of the phrase the redaction looks for, and no count after it: every occurrence is a try.
    const line = `Loop warning for ${'attempted unavailable tool '.repeat(12_000)}: WARNING`;
    const started = performance.now();
    for (let i = 0; i < 3; i += 1) redacting.warn(line);
    const elapsed = performance.now() - started;
    expect(lines).toEqual([line, line, line]);
    // Linear: a few milliseconds here; the unbounded pattern took seconds.
    expect(elapsed).toBeLessThan(1000);
  });
});
