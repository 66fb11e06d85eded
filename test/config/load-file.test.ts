/** `loadConfigFile` / `parseConfigText`: JSON5 config files with precise errors. */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigFileError, loadConfigFile, parseConfigText } from '../../src/config/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tool-loop-guard-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text, 'utf8');
  return path;
}

async function loadError(path: string): Promise<ConfigFileError> {
  try {
    await loadConfigFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    return error as ConfigFileError;
  }
  throw new Error(`expected ${path} to fail to load`);
}

describe('loadConfigFile', () => {
  it('loads valid JSON5 with comments, unquoted keys and trailing commas', async () => {
    const path = await file(
      'valid.json5',
      `// OpenClaw-shaped config
{
  tools: {
    loopDetection: {
      enabled: true, /* on for small models */
      warningThreshold: 8,
      detectors: { pingPong: false, },
    },
  },
  agents: {
    list: [
      { id: 'worker', tools: { loopDetection: { criticalThreshold: 16, }, }, },
    ],
  },
}
`,
    );
    const loaded = await loadConfigFile(path);
    expect(loaded.config).toEqual({
      tools: { loopDetection: { enabled: true, warningThreshold: 8, detectors: { pingPong: false } } },
      agents: { list: [{ id: 'worker', tools: { loopDetection: { criticalThreshold: 16 } } }] },
    });
    expect(loaded.warnings).toEqual([]);
  });

  it('a plain JSON file loads too', async () => {
    const path = await file('plain.json', JSON.stringify({ tools: { loopDetection: { enabled: false } } }));
    expect((await loadConfigFile(path)).config).toEqual({ tools: { loopDetection: { enabled: false } } });
  });

  it('a missing file → ConfigFileError whose message names the file', async () => {
    const path = join(dir, 'does-not-exist.json5');
    const error = await loadError(path);
    expect(error.file).toBe(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/not found/);
  });

  it('a directory → ConfigFileError naming it', async () => {
    const path = join(dir, 'a-directory');
    await mkdir(path);
    const error = await loadError(path);
    expect(error.message).toContain(path);
  });

  it('a syntax error → ConfigFileError naming the file, line and column', async () => {
    const path = await file('syntax.json5', '{\n  tools: {\n    loopDetection: { enabled: tru }\n  }\n}\n');
    const error = await loadError(path);
    expect(error.file).toBe(path);
    expect(error.line).toBe(3);
    // `    loopDetection: { enabled: tru }`: the space after `tru` (column 34) is the bad character.
    expect(error.column).toBe(34);
    expect(error.message).toContain(`${path}:3:34`);
    expect(error.message).toContain('invalid JSON5');
  });

  it('an unterminated object → a syntax error with a position', async () => {
    const path = await file('unterminated.json5', '{ tools: {');
    const error = await loadError(path);
    expect(error.line).toBe(1);
    expect(typeof error.column).toBe('number');
    expect(error.message).toContain(path);
  });

  it.each([
    ['an array', '[1, 2]'],
    ['a number', '42'],
    ['null', 'null'],
    ['a string', "'tools'"],
  ])('a top level that is %s → ConfigFileError', async (_label, text) => {
    const path = await file(`top-${text.length}-${_label.replace(/\s/g, '-')}.json5`, text);
    const error = await loadError(path);
    expect(error.file).toBe(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/expected an object/);
  });

  it('a value of the wrong type → ConfigFileError naming the key path (global block)', async () => {
    const path = await file('wrong-global.json5', '{ tools: { loopDetection: { warningThreshold: "5" } } }');
    const error = await loadError(path);
    expect(error.keyPath).toBe('tools.loopDetection.warningThreshold');
    expect(error.message).toContain(path);
    expect(error.message).toContain('tools.loopDetection.warningThreshold');
  });

  it('a value of the wrong type → ConfigFileError naming the key path (agent block)', async () => {
    const path = await file(
      'wrong-agent.json5',
      "{ agents: { list: [ { id: 'a', tools: { loopDetection: { detectors: { pingPong: 'no' } } } } ] } }",
    );
    const error = await loadError(path);
    expect(error.keyPath).toBe('agents.list[0].tools.loopDetection.detectors.pingPong');
    expect(error.message).toContain('agents.list[0].tools.loopDetection.detectors.pingPong');
  });

  it('unknown keys and clamped pairs are returned as warnings; the file still loads', async () => {
    const path = await file(
      'warnings.json5',
      '{ tools: { loopDetection: { enabled: true, warningThreshold: 10, criticalThreshold: 10, turnLimit: 4 } } }',
    );
    const loaded = await loadConfigFile(path);
    expect(loaded.config.tools?.loopDetection?.enabled).toBe(true);
    expect(loaded.warnings.map((w) => w.path).sort()).toEqual([
      'tools.loopDetection.criticalThreshold',
      'tools.loopDetection.turnLimit',
    ]);
    expect(loaded.warnings.every((w) => w.severity === 'warning')).toBe(true);
  });
});

describe('parseConfigText', () => {
  it('names the given source in errors, and "<config>" by default', () => {
    expect(() => parseConfigText('{', 'inline.json5')).toThrow(/inline\.json5:1:2/);
    expect(() => parseConfigText('[]')).toThrow(ConfigFileError);
    try {
      parseConfigText('[]');
    } catch (error) {
      expect((error as ConfigFileError).file).toBe('<config>');
      expect((error as Error).message).toContain('<config>');
    }
  });

  it('parses an empty object', () => {
    expect(parseConfigText('{}', 'x')).toEqual({ config: {}, warnings: [] });
  });
});
