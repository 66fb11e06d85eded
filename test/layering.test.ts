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

/**
 * The layers, lowest first, and what each may import of ours. The data path is the folder
 * path: util ← engine ← config ← spans ← otel ← instrument / cli. `semconv.ts` and
 * `version.ts` are leaf modules of names and constants, open to the layers that deal in spans.
 */
const LAYERS: Readonly<Record<string, readonly string[]>> = {
  util: ['util'],
  engine: ['util', 'engine'],
  config: ['util', 'engine', 'config'],
  spans: ['util', 'engine', 'config', 'spans', 'semconv.ts', 'version.ts'],
  otel: ['util', 'engine', 'config', 'spans', 'otel', 'semconv.ts', 'version.ts'],
  instrument: ['util', 'engine', 'config', 'spans', 'otel', 'instrument', 'semconv.ts', 'version.ts'],
  cli: ['util', 'engine', 'config', 'spans', 'otel', 'instrument', 'cli', 'semconv.ts', 'version.ts'],
  'engine-entry.ts': ['util', 'engine', 'config'],
};

/** Layers that must load nothing of OpenTelemetry. */
const FRAMEWORK_FREE = ['util', 'engine', 'config', 'spans', 'engine-entry.ts'];

/** The layer a path under src belongs to: its first folder, or the file name at the top. */
function layerOf(path: string): string {
  return relative(SRC, path).split(sep)[0];
}

/** Why a specifier breaks the layering, or undefined. */
function violation(file: string, specifier: string): string | undefined {
  const layer = layerOf(file);
  if (specifier.startsWith('@opentelemetry/'))
    return FRAMEWORK_FREE.includes(layer) ? `${specifier} (OpenTelemetry below otel)` : undefined;
  if (!specifier.startsWith('.')) return undefined; // other packages and node: builtins
  const target = layerOf(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
  return LAYERS[layer]?.includes(target) ? undefined : `${specifier} (${layer} may not import ${target})`;
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

describe('import layering: util ← engine ← config ← spans ← otel ← instrument / cli', () => {
  const files = sourceFiles(SRC);

  it('every source file belongs to a known layer (or is the main entry or a leaf module)', () => {
    const unknown = files
      .map(layerOf)
      .filter((layer) => !(layer in LAYERS) && !['index.ts', 'semconv.ts', 'version.ts'].includes(layer));
    expect(unknown).toEqual([]);
  });

  it.each(Object.keys(LAYERS))('%s imports only from the layers below it, in any import form', (layer) => {
    const inLayer = files.filter((file) => layerOf(file) === layer);
    expect(inLayer.length).toBeGreaterThan(0);
    const offenders = inLayer.flatMap((file) =>
      moduleSpecifiers(readFileSync(file, 'utf8'))
        .map((specifier) => violation(file, specifier))
        .filter((bad) => bad !== undefined)
        .map((bad) => `${relative(SRC, file)}: ${bad}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the check sees a violation when there is one', () => {
    expect(violation(join(SRC, 'engine', 'loop-run.ts'), '../config/types.js')).toMatch(/engine may not import config/);
    expect(violation(join(SRC, 'spans', 'span-guard.ts'), '@opentelemetry/api')).toMatch(/OpenTelemetry below otel/);
    expect(violation(join(SRC, 'util', 'logger.ts'), '../engine/types.js')).toMatch(/util may not import engine/);
    expect(violation(join(SRC, 'otel', 'processor.ts'), '../cli/cli.js')).toMatch(/otel may not import cli/);
    expect(violation(join(SRC, 'otel', 'processor.ts'), '@opentelemetry/api')).toBeUndefined();
    expect(violation(join(SRC, 'cli', 'demo.ts'), '../instrument/trace-run.js')).toBeUndefined();
  });
});

/** The source files each file of `files` imports (relative specifiers only), as resolved paths. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => [
      file,
      moduleSpecifiers(readFileSync(file, 'utf8'))
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => resolve(dirname(file), specifier).replace(/\.js$/, '.ts'))
        .filter((target) => known.has(target)),
    ]),
  );
}

/** Every import cycle of a graph, each as the path that closes it (first file repeated at the end). */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  const visit = (file: string): void => {
    path.push(file);
    onPath.add(file);
    for (const target of graph.get(file) ?? []) {
      if (onPath.has(target)) cycles.push([...path.slice(path.indexOf(target)), target]);
      else if (!done.has(target)) visit(target);
    }
    path.pop();
    onPath.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file);
  return cycles;
}

describe('import cycles', () => {
  it('no module of src/ imports itself through others, type imports included', () => {
    const cycles = importCycles(importGraph(sourceFiles(SRC)));
    expect(cycles.map((cycle) => cycle.map((file) => relative(SRC, file)).join(' → '))).toEqual([]);
  });

  it('the check sees a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ]);
    expect(importCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    expect(importCycles(new Map([['a', ['a']]]))).toEqual([['a', 'a']]);
    expect(
      importCycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });
});
