/**
 * `tool-loop-guard analyze` over files written by an attacker or a broken exporter, through the
 * built bin as an operator runs it: a file it cannot use is a clear problem of that file, and
 * every other file is still reported.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureDir, jsonl, loopSpans, otlpDocument } from '../cli/helpers.js';

/** Built by the test run's global setup (test/helpers/build-dist.ts). */
const BIN = fileURLToPath(new URL('../../dist/esm/cli/main.js', import.meta.url));

function analyze(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [BIN, 'analyze', ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

/** `cat file | tool-loop-guard analyze … /dev/stdin`, through a shell: stdin is a pipe (a FIFO), as an operator's is. */
function analyzeFromPipe(file: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const script = 'file=$1; shift; cat "$file" | "$@" /dev/stdin';
  const child = spawnSync('/bin/sh', ['-c', script, 'sh', file, process.execPath, BIN, 'analyze', ...args], {
    encoding: 'utf8',
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

/**
 * OTLP JSONL of `count` traces of one `execute_tool` span each (each trace is a run), the
 * `i`-th span from `start` to `end` microseconds after a fixed epoch.
 */
function singleSpanTraces(count: number, at: (i: number) => { start: number; end: number }): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const traceId = (i + 1).toString(16).padStart(32, '0');
    const { start, end } = at(i);
    lines.push(
      `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${traceId}","spanId":"00000000000000aa","name":"execute_tool x","startTimeUnixNano":"${1_000_000 + start * 1000}","endTimeUnixNano":"${1_000_000 + end * 1000}","attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"x"}}]}]}]}]}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

let fx: ReturnType<typeof fixtureDir> | undefined;
afterEach(() => {
  fx?.cleanup();
  fx = undefined;
});

/** Five identical calls: blocked at the fourth with `--enable --warning 2 --critical 3`. */
const LOOP = jsonl([1, 2, 3, 4, 5].map((step) => ({ step, tool: 'search', args: {}, result: 'same' })));
const SMALL = ['--enable', '--warning', '2', '--critical', '3'];

/** An OTLP JSON document (one span, `execute_tool`) whose attribute `deep` nests `levels` arrays. */
function deepOtlp(levels: number, pretty: boolean): string {
  const value = `${'{"arrayValue":{"values":['.repeat(levels)}{"stringValue":"x"}${']}}'.repeat(levels)}`;
  const span = `{"traceId":"0123456789abcdef0123456789abcdef","spanId":"0123456789abcdef","name":"execute_tool lookup","startTimeUnixNano":"1000","endTimeUnixNano":"2000","attributes":[{"key":"gen_ai.tool.name","value":{"stringValue":"lookup"}},{"key":"deep","value":${value}}]}`;
  return `{${pretty ? '\n' : ''}"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[${span}]}]}]}\n`;
}

describe('analyze, files nested far deeper than any trace', () => {
  it.each([
    ['a pretty-printed document', true],
    ['a JSONL line', false],
  ])('%s nested 50 000 levels is a problem of its own file; the other file is still reported', (_kind, pretty) => {
    fx = fixtureDir();
    const good = fx.write('good.jsonl', LOOP);
    const deep = fx.write(pretty ? 'deep.json' : 'deep.jsonl', deepOtlp(50_000, pretty));
    const result = analyze([...SMALL, good, deep]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('first block at call 4 (step 4) of 5');
    expect(result.stdout).toContain('attribute "deep" nested deeper than 100 levels; left out');
    // The span itself is kept: it is the one call of its trace's run.
    expect(result.stdout).toMatch(/total: 2 runs .* 6 +1 +2 +0/);
  });

  it('a trajectory line whose arguments nest 50 000 levels is skipped with its line number', () => {
    fx = fixtureDir();
    const args = `${'['.repeat(50_000)}1${']'.repeat(50_000)}`;
    const deep = fx.write('deep.jsonl', `{"step":1,"tool":"search","args":${args},"result":"x"}\n${LOOP}`);
    const result = analyze([...SMALL, deep]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('deep.jsonl:1: skipped: nested too deeply to decode');
    expect(result.stdout).toContain('first block at call 4 (step 4) of 5');
  });
});

describe('analyze, very many runs', () => {
  it('lists 130 000 runs with --all-runs', () => {
    fx = fixtureDir();
    const runs = 130_000;
    const file = fx.write(
      'many.jsonl',
      singleSpanTraces(runs, (i) => ({ start: i * 1000, end: i * 1000 + 500 })),
    );
    const result = analyze(['--all-runs', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`total: ${runs} runs`);
    expect(result.stdout.split('\n').filter((line) => /^0{24}[0-9a-f]{8} +1 +0 +0 +0 +-$/.test(line))).toHaveLength(
      runs,
    );
  }, 120_000);
});

describe('analyze, control characters in traces', () => {
  it('escapes ESC, BEL, CR and LF from tool names, run ids and messages in the text report', () => {
    fx = fixtureDir();
    const tool = 'lookup\u001b]0;pwned\u0007\u001b[2J';
    const runId = 'run-1\r\nFAKE total: 0 runs blocked';
    const calls = [1, 2, 3, 4].map((n) => ({
      spanId: `00000000000000a${n}`,
      name: 'execute_tool',
      start: n * 10,
      end: n * 10 + 5,
      attributes: {
        'gen_ai.tool.name': tool,
        'gen_ai.tool.call.arguments': '{"q":1}',
        'gen_ai.tool.call.result': '"same"',
        'tool_loop.run_id': runId,
      },
    }));
    const file = fx.write('hostile.json', otlpDocument('0af7651916cd43dd8448eb211c80319c', calls));
    const result = analyze([...SMALL, '--all-runs', '--verbose', file]);
    expect(result.code).toBe(0);
    for (const output of [result.stdout, result.stderr]) {
      const controls = [...output].filter((c) => c !== '\n' && (c < ' ' || (c >= '\u007f' && c <= '\u009f')));
      expect(controls).toEqual([]);
      expect(output.split('\n').some((line) => line.startsWith('FAKE'))).toBe(false);
    }
    expect(result.stdout).toContain('lookup\\x1b]0;pwned\\x07\\x1b[2J');
    expect(result.stdout).toContain('run-1\\r\\nFAKE total: 0 runs blocked');
    expect(result.stdout).toMatch(/^total: 1 runs/m);
  });
});

describe('analyze, a pipe', () => {
  it('reads a pretty-printed document from /dev/stdin once, as it would from a file', () => {
    fx = fixtureDir();
    const document = JSON.stringify(otlpDocument('0af7651916cd43dd8448eb211c80319c', loopSpans(4)), null, 2);
    const fromFile = analyze([...SMALL, fx.write('export.json', document)]);
    const fromPipe = analyzeFromPipe(fx.write('piped.json', document), SMALL);
    expect(fromPipe.stderr).toBe('');
    expect(fromPipe.code).toBe(0);
    expect(fromPipe.stdout).toContain('first block at call 4 of 4');
    expect(fromPipe.stdout.replaceAll('/dev/stdin', 'input')).toBe(
      fromFile.stdout.replaceAll(fx.dir, '').replaceAll('/export.json', 'input'),
    );
  });
});

describe('analyze, more runs at once than the live-run cap', () => {
  it('counts 12 000 single-span traces at one instant as 12 000 runs, and reports the evictions', () => {
    fx = fixtureDir();
    const runs = 12_000;
    const traces = singleSpanTraces(runs, () => ({ start: 0, end: 0 }));
    const result = analyze(['--json', fx.write('instant.jsonl', traces)]);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      totals: { runs: number; calls: number; evictions: number };
      runs: Array<{ id: string; calls: number }>;
    };
    expect(report.totals).toMatchObject({ runs, calls: runs });
    expect(new Set(report.runs.map((run) => run.id)).size).toBe(runs);
    expect(report.runs.every((run) => run.calls === 1)).toBe(true);
    // 10 000 live at once (the processor's default cap): the first 2 000 were evicted before their end.
    expect(report.totals.evictions).toBeGreaterThanOrEqual(2000);
    const text = analyze([fx.write('instant-again.jsonl', traces)]).stdout;
    expect(text).toContain(`total: ${runs} runs`);
    expect(text).toMatch(/\d+ early releases of a run's state/);
  }, 60_000);
});
