import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('engine and config are framework-free', () => {
  it.each(['src/engine', 'src/config'])('%s imports nothing from @opentelemetry or from src/otel', (dir) => {
    const files = sourceFiles(dir);
    expect(files.length).toBeGreaterThan(3);
    const offenders = files.filter((file) => /from\s+['"](@opentelemetry\/|\.\.\/otel\/|\.\.\/\.\.\/otel\/)/.test(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
