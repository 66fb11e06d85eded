import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chatSpan, fixtureDir, jsonl, loopSpans, otlpDocument, runCli, type FixtureSpan } from '../helpers.js';

type Fx = ReturnType<typeof fixtureDir>;
let fx: Fx;
beforeEach(() => {
  fx = fixtureDir();
});
afterEach(() => fx.cleanup());

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** `n` identical calls, then one different call. */
function loopingTrajectory(n: number): string {
  const lines: object[] = [];
  for (let i = 1; i <= n; i += 1)
    lines.push({
      step: i,
      tool: 'search',
      args: { q: 'same' },
      result: 'The search API calls seem not valid.',
      error: true,
    });
  lines.push({ step: n + 1, tool: 'write_patch', args: { p: 1 }, result: 'ok' });
  return jsonl(lines);
}

interface JsonEvent {
  call: number;
  step?: number;
  phase: string;
  action: string;
  level: string;
  detector: string;
  count: number;
  toolName: string;
  message: string;
}
interface JsonRun {
  id: string;
  format: string;
  calls: number;
  warnings: number;
  blocks: number;
  aborts: number;
  arms: number;
  firstBlock?: { call: number; step?: number };
  events: JsonEvent[];
}
interface JsonReport {
  tool: string;
  command: string;
  version: string;
  config: { enabled: boolean; warningThreshold: number; criticalThreshold: number };
  totals: Record<string, number>;
  runs: JsonRun[];
  inputs: Array<{ file: string; format?: string }>;
  problems: Array<{ file: string; line?: number; message: string }>;
}

async function analyzeJson(args: string[]): Promise<{ code: number; report: JsonReport; stderr: string }> {
  const { code, stdout, stderr } = await runCli(['analyze', '--json', ...args]);
  return { code, report: JSON.parse(stdout) as JsonReport, stderr };
}

describe('analyze: trajectories', () => {
  it('blocks the call whose identical (tool, args, result) streak reaches critical, and keeps replaying', async () => {
    const file = fx.write('loop.jsonl', loopingTrajectory(6));
    const { code, report } = await analyzeJson(['--enable', '--warning', '2', '--critical', '3', file]);
    expect(code).toBe(0);
    expect(report).toMatchObject({
      tool: 'tool-loop-guard',
      command: 'analyze',
      config: { enabled: true, warningThreshold: 2, criticalThreshold: 3 },
    });
    const [run] = report.runs;
    expect(run).toMatchObject({
      id: file,
      format: 'trajectory',
      calls: 7,
      blocks: 3,
      aborts: 0,
      firstBlock: { call: 4, step: 4 },
    });
    // Calls 1–3 ran with the same error outcome; call 4 sees a streak of 3 and is blocked.
    // A blocked call is recorded as a loop veto, so calls 5 and 6 are blocked one count higher; call 7 differs.
    expect(run.events.map((e) => [e.call, e.action, e.detector, e.count])).toEqual([
      [3, 'warn', 'generic_repeat', 2],
      [4, 'block', 'generic_repeat', 3],
      [5, 'block', 'generic_repeat', 4],
      [6, 'block', 'generic_repeat', 5],
    ]);
    expect(run.events[1]).toMatchObject({
      phase: 'start',
      level: 'critical',
      toolName: 'search',
      message:
        'CRITICAL: Called search with identical arguments and identical outcomes 3 times. Session execution blocked to prevent runaway loops.',
    });
    expect(report.totals).toMatchObject({
      files: 1,
      runs: 1,
      calls: 7,
      warnings: 1,
      blocks: 3,
      aborts: 0,
      runsWithBlocks: 1,
      problems: 0,
    });
  });

  it('tracks recovery after each warning or block, as the processor does: left the loop, repeated it, ended', async () => {
    const file = fx.write('loop.jsonl', loopingTrajectory(6));
    const recoveryOf = async (extra: string[]) => {
      const { report } = await analyzeJson(['--enable', '--warning', '2', '--critical', '3', ...extra, file]);
      return [(report.runs[0] as unknown as { recovery: object }).recovery, report.totals.recovery];
    };
    // Warned at call 3, blocked at 4, 5, 6: calls 4, 5 and 6 repeat the loop; after the block at 6,
    // write_patch leaves it, and the run ends within the default 5 calls watched.
    const ended = { recovered: 0, repeated: 3, runEnded: 1 };
    expect(await recoveryOf([])).toEqual([ended, ended]);
    const left = { recovered: 1, repeated: 3, runEnded: 0 };
    expect(await recoveryOf(['--recovery-window', '1'])).toEqual([left, left]);
    const off = { recovered: 0, repeated: 0, runEnded: 0 };
    expect(await recoveryOf(['--recovery-window', '0'])).toEqual([off, off]);
    const { stdout } = await runCli(['analyze', '--enable', '--warning', '2', '--critical', '3', file]);
    expect(stdout).toContain('  after a warning or block: 0 left the loop, 3 repeated it, 1 ended the run\n');
    expect(stdout).toContain('Recovery after a warning or block: 0 left the loop, 3 repeated it, 1 ended the run\n');
    const bad = await runCli(['analyze', '--recovery-window', 'five', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--recovery-window must be a whole number of calls, got "five"');
  });

  it('finds nothing with the shipped defaults (rolling detectors off)', async () => {
    const file = fx.write('loop.jsonl', loopingTrajectory(25));
    const { report } = await analyzeJson([file]);
    expect(report.config.enabled).toBe(false);
    expect(report.totals).toMatchObject({ warnings: 0, blocks: 0, aborts: 0 });
  });

  it('--skip-synthetic leaves out harness-inserted steps', async () => {
    const lines = [1, 2, 3, 4, 5].map((step) => ({
      step,
      tool: '(no_valid_api_call)',
      args: {},
      result: 'invalid',
      error: true,
      synthetic: true,
    }));
    const file = fx.write('synthetic.jsonl', jsonl(lines));
    expect((await analyzeJson(['--enable', '--warning', '2', '--critical', '3', file])).report.totals.blocks).toBe(2);
    expect(
      (await analyzeJson(['--enable', '--warning', '2', '--critical', '3', '--skip-synthetic', file])).report.totals,
    ).toMatchObject({ calls: 0, blocks: 0 });
  });

  it('reads --config (JSON5, processor rules) and lets flags override it', async () => {
    const file = fx.write('loop.jsonl', loopingTrajectory(6));
    const config = fx.write(
      'config.json5',
      `{ tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 5, } } } // JSON5`,
    );
    expect((await analyzeJson(['--config', config, file])).report.runs[0].firstBlock).toEqual({ call: 6, step: 6 });
    expect((await analyzeJson(['--config', config, '--critical', '3', file])).report.runs[0].firstBlock).toEqual({
      call: 4,
      step: 4,
    });
    const bad = fx.write('bad.json5', `{ tools: { loopDetection: { warningThreshold: "ten" } } }`);
    const result = await runCli(['analyze', '--config', bad, file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tools.loopDetection.warningThreshold: expected a positive integer');
  });

  it('reports each warning of --config once, naming the file', async () => {
    const file = fx.write('loop.jsonl', loopingTrajectory(6));
    const config = fx.write('config.json5', `{ tools: { loopDetection: { enabled: true, bogus: 1 } } }`);
    const { stderr } = await runCli(['analyze', '--config', config, file]);
    const lines = stderr.split('\n').filter((line) => line.includes('bogus'));
    expect(lines).toEqual([`warning: config ${config}: tools.loopDetection.bogus: unknown key (ignored)`]);
  });
});

describe('analyze: exit codes and errors', () => {
  it('--fail-on critical exits 1 when something was blocked, 0 otherwise', async () => {
    const looping = fx.write('loop.jsonl', loopingTrajectory(6));
    const healthy = fx.write('ok.jsonl', jsonl([{ step: 1, tool: 'a', args: {}, result: 'x' }]));
    expect(
      (await runCli(['analyze', '--enable', '--warning', '2', '--critical', '3', '--fail-on', 'critical', looping]))
        .code,
    ).toBe(1);
    expect(
      (await runCli(['analyze', '--enable', '--warning', '2', '--critical', '3', '--fail-on', 'critical', healthy]))
        .code,
    ).toBe(0);
    expect((await runCli(['analyze', '--enable', '--warning', '2', '--critical', '3', looping])).code).toBe(0);
    const warnOnly = fx.write('warn.jsonl', loopingTrajectory(3));
    expect(
      (await runCli(['analyze', '--enable', '--warning', '2', '--critical', '5', '--fail-on', 'critical', warnOnly]))
        .code,
    ).toBe(0);
    expect(
      (await runCli(['analyze', '--enable', '--warning', '2', '--critical', '5', '--fail-on', 'warning', warnOnly]))
        .code,
    ).toBe(1);
  });

  it('exits 2 on usage errors', async () => {
    const file = fx.write('ok.jsonl', jsonl([{ step: 1, tool: 'a', args: {}, result: 'x' }]));
    for (const args of [
      ['analyze'],
      ['analyze', '--format', 'csv', file],
      ['analyze', '--warning', 'x', file],
      ['analyze', '--bogus', file],
      ['analyze', '--fail-on', 'info', file],
      ['frobnicate'],
    ]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^tool-loop-guard: /);
    }
    const missing = await runCli(['analyze', `${fx.dir}/missing.jsonl`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing.jsonl: cannot read: file not found');
  });

  it('reports a malformed line as file:line and analyses the rest', async () => {
    const broken = fx.write(
      'broken.jsonl',
      [
        JSON.stringify({ step: 1, tool: 'a', args: {}, result: 'x' }),
        '{not json',
        JSON.stringify({ step: 3, tool: 'a', args: {}, result: 'x' }),
      ].join('\n'),
    );
    const other = fx.write('other.jsonl', loopingTrajectory(4));
    const { code, report, stderr } = await analyzeJson(['--enable', '--warning', '2', '--critical', '3', fx.dir]);
    expect(code).toBe(0);
    expect(stderr).toContain(`${broken}:2: malformed JSON line`);
    expect(report.problems).toEqual([expect.objectContaining({ file: broken, line: 2 })]);
    expect(report.runs.map((run) => [run.id, run.calls])).toEqual([
      [broken, 2],
      [other, 5],
    ]);
    expect(report.totals.problems).toBe(1);
    const text = await runCli(['analyze', fx.dir]);
    expect(text.stdout).toContain('1 input problem:');
    expect(text.stdout).toContain(`${broken}:2: malformed JSON line`);
  });

  it('shows progress on stderr only when stderr is a TTY', async () => {
    const file = fx.write('ok.jsonl', jsonl([{ step: 1, tool: 'a', args: {}, result: 'x' }]));
    expect((await runCli(['analyze', file])).stderr).toBe('');
    expect((await runCli(['analyze', file], { tty: true })).stderr).toContain('analyzing 1/1');
  });

  it('prints help and version', async () => {
    expect((await runCli(['--help'])).stdout).toContain('Usage: tool-loop-guard <command>');
    expect((await runCli(['analyze', '--help'])).stdout).toContain('--fail-on <warning|critical>');
    expect((await runCli(['sweep', '--help'])).stdout).toContain('--index <file>');
    expect((await runCli(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('analyze: traces', () => {
  it('replays OTLP tool spans in time order: blocked at start, outcome of a blocked call not recorded', async () => {
    const file = fx.write('trace.json', otlpDocument(TRACE, loopSpans(5, { runId: 'run-7' })));
    const { report } = await analyzeJson(['--enable', '--warning', '2', '--critical', '3', file]);
    expect(report.inputs).toEqual([expect.objectContaining({ file, format: 'otlp' })]);
    expect(report.runs).toHaveLength(1);
    const [run] = report.runs;
    expect(run).toMatchObject({ id: 'run-7', format: 'otlp', calls: 5, blocks: 2, firstBlock: { call: 4 } });
    expect(run.events.filter((e) => e.action === 'block').map((e) => [e.call, e.phase])).toEqual([
      [4, 'start'],
      [5, 'start'],
    ]);
  });

  it("charges the recorded model calls' tokens to their run: verdicts carry the tokens and time wasted in the loop", async () => {
    const spans = loopSpans(5, { runId: 'run-9' });
    for (let i = 0; i < 5; i += 1) spans.push(chatSpan(i + 1, 10 * i + 6, 10 * i + 9));
    const file = fx.write('usage.json', otlpDocument(TRACE, spans));
    const { report } = await analyzeJson(['--enable', '--warning', '2', '--critical', '3', file]);
    // The loop starts at call 1 (1 ms); the model calls that ended before call 4 started (31 ms) are 3.
    expect(
      report.runs[0].events.map((e) => [
        e.call,
        e.action,
        (e as { wastedTokens?: number }).wastedTokens,
        (e as { wastedMs?: number }).wastedMs,
      ]),
    ).toEqual([
      [3, 'warn', 240, 20],
      [4, 'block', 360, 30],
      [5, 'block', 480, 40],
    ]);
  });

  it('never takes calls whose arguments were not captured for repeats (as live)', async () => {
    const spans = loopSpans(4).map((span) => {
      const attributes = { ...span.attributes };
      delete attributes['gen_ai.tool.call.arguments'];
      return { ...span, attributes };
    });
    const file = fx.write('late.json', otlpDocument(TRACE, spans));
    const { report } = await analyzeJson(['--enable', '--warning', '2', '--critical', '3', '--all-runs', file]);
    const [run] = report.runs;
    expect(run).toMatchObject({ id: TRACE, calls: 4, warnings: 0, blocks: 0 });
    expect(run.events).toEqual([]);
  });

  it('arms the post-compaction guard on compaction.retry spans and aborts a persisting loop (guard on by default)', async () => {
    const spans: FixtureSpan[] = loopSpans(4, { runId: 'run-c' });
    spans.splice(2, 0, {
      spanId: 'c000000000000001',
      parentSpanId: 'a000000000000001',
      name: 'compaction',
      start: 7,
      end: 8,
      attributes: { 'compaction.retry': true },
    });
    const file = fx.write('compaction.json', otlpDocument(TRACE, spans));
    const { report } = await analyzeJson([file]);
    const [run] = report.runs;
    // Calls 2, 3 and 4 follow the compaction (at 7 ms): the third identical outcome aborts.
    expect(run).toMatchObject({ id: 'run-c', calls: 4, aborts: 1, arms: 1, blocks: 0 });
    expect(run.events.map((e) => [e.call, e.action, e.detector, e.count])).toEqual([
      [1, 'arm', 'compaction_loop_persisted', 0],
      [4, 'abort', 'compaction_loop_persisted', 3],
    ]);
    expect((await runCli(['analyze', '--fail-on', 'critical', file])).code).toBe(1);
  });

  it('keeps runs apart by tool_loop.run_id and merges trace files read together', async () => {
    const a = loopSpans(3, { runId: 'run-a' });
    // Run b's ids differ from run a's, and from one another (its root's from its calls').
    const otherId = (id: string) => `${id.startsWith('a') ? 'e' : 'f'}${id.slice(1)}`;
    const b = loopSpans(3, { runId: 'run-b' }).map((span) => ({
      ...span,
      spanId: otherId(span.spanId),
      parentSpanId: span.parentSpanId ? otherId(span.parentSpanId) : undefined,
      start: span.start + 2,
      end: span.end + 2,
    }));
    // One trace split over two files (one object per line in the second), as rotation does.
    fx.write('part1.json', otlpDocument(TRACE, [...a.slice(0, 2), ...b.slice(0, 2)]));
    fx.write(
      'part2.jsonl',
      `${JSON.stringify(otlpDocument(TRACE, a.slice(2)))}\n${JSON.stringify(otlpDocument(TRACE, b.slice(2)))}\n`,
    );
    const { report } = await analyzeJson(['--enable', '--warning', '2', '--critical', '3', fx.dir]);
    expect(report.runs.map((run) => [run.id, run.calls, run.warnings, run.blocks]).sort()).toEqual([
      ['run-a', 3, 1, 0],
      ['run-b', 3, 1, 0],
    ]);
  });

  it('reads Jaeger exports through the same adapters', async () => {
    const tags = (attributes: Record<string, unknown>) =>
      Object.entries(attributes).map(([key, value]) => ({ key, type: 'string', value }));
    const spans = [0, 1, 2, 3].map((i) => ({
      traceID: 'a3ce929d0e0e4736',
      spanID: `00000000000000b${i}`,
      operationName: 'execute_tool read',
      references: [],
      startTime: 1_700_000_000_000_000 + i * 1000,
      duration: 100,
      tags: tags({
        'gen_ai.tool.name': 'read',
        'gen_ai.tool.call.arguments': '{"path":"/x"}',
        'gen_ai.tool.call.result': 'same',
        'tool_loop.run_id': 'jr',
      }),
      logs: [],
      processID: 'p1',
    }));
    const file = fx.write('jaeger.json', {
      data: [{ traceID: 'a3ce929d0e0e4736', spans, processes: { p1: { serviceName: 'svc', tags: [] } } }],
    });
    const { report } = await analyzeJson(['--enable', '--warning', '2', '--critical', '3', file]);
    expect(report.runs).toEqual([
      expect.objectContaining({ id: 'jr', format: 'jaeger', calls: 4, blocks: 1, firstBlock: { call: 4 } }),
    ]);
  });

  it('prints a human-readable report with a summary table', async () => {
    const file = fx.write('loop.jsonl', loopingTrajectory(6));
    const { stdout } = await runCli(['analyze', '--enable', '--warning', '2', '--critical', '3', file]);
    expect(stdout).toContain('Config: rolling detectors on (warning 2, critical 3');
    expect(stdout).toMatch(/call 4 \(step 4\)\s+block\s+generic_repeat\s+count 3\s+search/);
    expect(stdout).toContain('first block at call 4 (step 4) of 7');
    expect(stdout).toMatch(/run\s+calls\s+warnings\s+blocks\s+aborts\s+first block/);
    expect(stdout).toMatch(/total: 1 runs\s+7\s+1\s+3\s+0\s+1 runs blocked/);
  });
});
