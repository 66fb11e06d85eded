import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Every module a source text loads (import/export from, bare import, import(), require()), as TypeScript reads them. */
function moduleSpecifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

const SRC = resolve('src');
const FRAMEWORK_FREE = ['src/util', 'src/engine', 'src/config'];

/** Why a specifier breaks the rule, or undefined: OTel packages, and our modules outside engine/config (src/otel, src/instrument, src/index…). */
function violation(file: string, specifier: string): string | undefined {
  if (specifier.startsWith('@opentelemetry/')) return specifier;
  if (!specifier.startsWith('.')) return undefined; // other packages and node: builtins
  const target = relative(SRC, resolve(dirname(file), specifier));
  const allowed = FRAMEWORK_FREE.some(
    (dir) => target === relative(SRC, dir) || target.startsWith(relative(SRC, dir) + sep),
  );
  return allowed ? undefined : specifier;
}

describe('module specifier extraction (the check below relies on it)', () => {
  it.each([
    ["import { x } from '@opentelemetry/api';", ['@opentelemetry/api']],
    ['import type { X } from "../otel/processor.js";', ['../otel/processor.js']],
    ["export { y } from '../../otel/options.js';", ['../../otel/options.js']],
    ["import '@opentelemetry/api';", ['@opentelemetry/api']],
    ["const a = 1;import '../otel/x.js'", ['../otel/x.js']],
    ["const m = await import('@opentelemetry/api');", ['@opentelemetry/api']],
    ['type T = import("../otel/loop-event.js").LoopEvent;', ['../otel/loop-event.js']],
    ["const api = require('@opentelemetry/api');", ['@opentelemetry/api']],
    ['const api = require (`../otel/processor.js`);', ['../otel/processor.js']],
    ["const important = 'x'; // no import here", []],
  ])('%s → %j', (text, expected) => {
    expect(moduleSpecifiers(text)).toEqual(expected);
  });
});

describe('engine and config are framework-free', () => {
  it.each(FRAMEWORK_FREE)(
    '%s loads nothing from @opentelemetry or from src outside engine/config, in any import form',
    (dir) => {
      const files = sourceFiles(dir);
      expect(files.length).toBeGreaterThan(3);
      const offenders = files.flatMap((file) =>
        moduleSpecifiers(readFileSync(file, 'utf8'))
          .map((specifier) => violation(file, specifier))
          .filter((bad) => bad !== undefined)
          .map((bad) => `${file}: ${bad}`),
      );
      expect(offenders).toEqual([]);
    },
  );
});
