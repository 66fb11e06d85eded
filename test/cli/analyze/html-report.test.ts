import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { analyze, type AnalyzeReport, type RunReport } from '../../../src/cli/analyze/analyzer.js';
import { escapeHtml } from '../../../src/cli/analyze/html-escape.js';
import { MAX_QUIET_RUNS_SHOWN, renderHtmlReport } from '../../../src/cli/analyze/html-report.js';
import { fixtureDir, jsonl, runCli } from '../helpers.js';

type Fx = ReturnType<typeof fixtureDir>;
let fx: Fx;
beforeEach(() => {
  fx = fixtureDir();
});
afterEach(() => fx.cleanup());

const HOSTILE_TOOL = '<img src=x onerror=alert(1)>';
const THRESHOLDS = ['--enable', '--warning', '2', '--critical', '3'];
const CONFIG = { tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3 } } };

/** Trajectory lines: `tool(args) → result` per call. */
function trajectory(calls: readonly [tool: string, args: object, result: string][]): string {
  return jsonl(calls.map(([tool, args, result], i) => ({ step: i + 1, tool, args, result })));
}

/** The `<li class="call …">` items of the report, in order, as [index, kind, the item's text]. */
function callItems(html: string): [number, string, string][] {
  return [...html.matchAll(/<li class="call[^"]*" data-call="(\d+)" data-kind="([a-z-]+)"[^>]*>(.*?)<\/li>/g)].map(
    (match) => [Number(match[1]), match[2], match[3]],
  );
}

async function analyzeWithTimeline(file: string, timelineCalls = 500, config: object = CONFIG): Promise<AnalyzeReport> {
  return analyze({ inputs: [file], config, timelineCalls });
}

/** {@link CONFIG} without the ping-pong detector, so an alternation stays a cycle on the timeline only. */
const NO_PING_PONG = { tools: { loopDetection: { ...CONFIG.tools.loopDetection, detectors: { pingPong: false } } } };

describe('escapeHtml', () => {
  it('escapes markup and quote characters, and control characters other than tab and line breaks', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
    expect(escapeHtml('a\u0000b\u001bc\u007fd\te\nf')).toBe('a\ufffdb\ufffdc\ufffdd\te\nf');
  });
});

describe('analyze --html: the timeline kept per run', () => {
  it('is kept only when asked for', async () => {
    const file = fx.write('run.jsonl', trajectory([['read', { p: 1 }, 'x']]));
    const [plain] = (await analyze({ inputs: [file], config: CONFIG })).runs;
    expect(plain).not.toHaveProperty('timeline');
    const [kept] = (await analyzeWithTimeline(file)).runs;
    expect(kept.timeline?.calls).toHaveLength(1);
  });

  it('marks repeats, repeats with the same result, cycles, and the block with its loop', async () => {
    const file = fx.write(
      'run.jsonl',
      trajectory([
        ['plan', { goal: 1 }, 'ok'],
        ['read', { path: '/a' }, 'first'],
        ['read', { path: '/a' }, 'second'], // same arguments, another result
        ['read', { path: '/b' }, 'B'],
        ['grep', { q: 'x' }, 'G'],
        ['list', { dir: '.' }, 'L'],
        ['grep', { q: 'x' }, 'G'],
        ['list', { dir: '.' }, 'L'], // grep, list, grep, list: a cycle of period 2
        ['edit', { file: 'f' }, 'E'],
        ['edit', { file: 'f' }, 'E'],
        ['edit', { file: 'f' }, 'E'],
        ['edit', { file: 'f' }, 'E'], // its 4th identical call: blocked (critical 3)
      ]),
    );
    const [run] = (await analyzeWithTimeline(file, 500, NO_PING_PONG)).runs;
    const calls = run.timeline!.calls;
    expect(calls.map((call) => call.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(calls[2]).toMatchObject({ repeatOf: 2, occurrence: 2 });
    expect(calls[2].sameOutcomeAs).toBeUndefined();
    expect(calls.filter((call) => call.cyclePeriod === 2).map((call) => call.index)).toEqual([5, 6, 7, 8]);
    expect(calls[9]).toMatchObject({ repeatOf: 9, sameOutcomeAs: 9 });
    expect(run.events.map((event) => [event.call, event.action])).toEqual([
      [11, 'warn'],
      [12, 'block'],
    ]);
    expect(calls[11]).toMatchObject({ outcome: 'vetoed', judged: 'start', loopOf: 12 });
    expect(calls.filter((call) => call.loopOf === 12).map((call) => call.index)).toEqual([9, 10, 11, 12]);

    const html = renderHtmlReport(await analyzeWithTimeline(file, 500, NO_PING_PONG), { version: '9.9.9' });
    const items = callItems(html);
    expect(items.map(([index, kind]) => [index, kind])).toEqual([
      [1, 'new'],
      [2, 'new'],
      [3, 'repeat'],
      [4, 'new'],
      [5, 'cycle'],
      [6, 'cycle'],
      [7, 'cycle'],
      [8, 'cycle'],
      [9, 'new'],
      [10, 'same-result'],
      [11, 'warn'],
      [12, 'block'],
    ]);
    expect(items[2][2]).toContain('REPEAT 2× of #2');
    expect(items[4][2]).toContain('CYCLE ×2');
    expect(items[9][2]).toContain('SAME RESULT as #9');
    expect(items[10][2]).toContain('WARN generic_repeat');
    expect(items[11][2]).toContain('BLOCK generic_repeat');
    expect(items[11][2]).toContain('not run: blocked');
    expect(html).toMatch(/<li class="call new in-loop" data-call="9"/);
    expect(html).toContain(
      '12 calls · 6 repeats · cycle of period 2 · <span class="warned">1 warning</span> · <span class="blocked">1 block</span> · first block at call 12 (step 12)',
    );
  });

  it('finds a cycle of period 3', async () => {
    const abc: [string, object, string][] = [
      ['a', {}, 'A'],
      ['b', {}, 'B'],
      ['c', {}, 'C'],
    ];
    const file = fx.write('run.jsonl', trajectory([...abc, ...abc]));
    const [run] = (await analyzeWithTimeline(file)).runs;
    expect(run.timeline!.calls.map((call) => call.cyclePeriod)).toEqual([3, 3, 3, 3, 3, 3]);
  });

  it('keeps at most the cap: the first calls, the lead-in to the first finding and what follows, with notes', async () => {
    const calls: [string, object, string][] = Array.from({ length: 30 }, (_, i) => ['step', { i }, `r${i}`]);
    for (let i = 0; i < 6; i += 1) calls.push(['stuck', { same: true }, 'same']);
    for (let i = 0; i < 10; i += 1) calls.push(['after', { i }, `a${i}`]);
    const file = fx.write('long.jsonl', trajectory(calls));
    const report = await analyzeWithTimeline(file, 12);
    const [run] = report.runs;
    // 6 first calls, a lead-in of 3 (the last before the warning at 33), then 3 more up to 12.
    expect(run.timeline!.calls.map((call) => call.index)).toEqual([1, 2, 3, 4, 5, 6, 31, 32, 33, 34, 35, 36]);
    expect(run.events.map((event) => event.call)).toEqual([33, 34, 35, 36]);
    const html = renderHtmlReport(report, { version: '0' });
    expect(html).toContain('Showing 12 of 46 calls (at most 12 per run are kept');
    expect(html).toContain('<li class="gap" data-kind="gap">24 calls not shown (7–30)</li>');
    expect(html).toContain('<li class="gap" data-kind="gap">10 calls not shown (37–46)</li>');
    expect(html.match(/<tr class="finding /g)).toHaveLength(4);
  });
});

describe('renderHtmlReport', () => {
  it('escapes every recorded string: tool names, messages, run ids, problems', async () => {
    const file = fx.write(
      `"><svg onload=alert(0)>.jsonl`,
      trajectory(Array.from({ length: 5 }, () => [HOSTILE_TOOL, { q: "'><script>alert(2)</script>" }, 'same'])),
    );
    fx.write('broken.jsonl', '{"step": 1, "tool": "<u>x</u>", "args": {}}\n{not json <i>\n');
    const report = await analyze({ inputs: [fx.dir], config: CONFIG, timelineCalls: 500 });
    expect(report.runs.find((run) => run.id === file)?.blocks).toBeGreaterThan(0);
    expect(report.problems.length).toBeGreaterThan(0);
    const html = renderHtmlReport(report, { version: '<v>' });
    for (const raw of ['<img', '<svg', '<script', '<u>', '<i>', '<v>', 'onload=alert(0)>'])
      expect(html).not.toContain(raw);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('Called &lt;img src=x onerror=alert(1)&gt; with identical arguments');
    expect(html).toContain('&quot;&gt;&lt;svg onload=alert(0)&gt;.jsonl');
    // The only tags are the report's own.
    const tags = new Set([...html.matchAll(/<([a-z0-9]+)[\s>]/g)].map((match) => match[1]));
    const own = new Set([
      'a',
      'body',
      'br',
      'code',
      'details',
      'h1',
      'h2',
      'h3',
      'head',
      'header',
      'html',
      'li',
      'main',
    ]);
    for (const tag of ['meta', 'ol', 'p', 'section', 'span', 'style', 'summary', 'table', 'tbody', 'td', 'th', 'thead'])
      own.add(tag);
    for (const tag of ['title', 'tr', 'ul']) own.add(tag);
    expect([...tags].filter((tag) => !own.has(tag))).toEqual([]);
  });

  it('is self-contained: no script, no external resource, a policy that forbids both', async () => {
    const file = fx.write('run.jsonl', trajectory([['read', {}, 'x']]));
    const html = renderHtmlReport(await analyzeWithTimeline(file), { version: '1' });
    expect(html.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(|https?:\/\//i);
    expect([...html.matchAll(/href="([^"]*)"/g)].every((match) => match[1].startsWith('#run-'))).toBe(true);
  });

  it('shows any detector name, the cycle period, the loop and the wasted tokens and time', async () => {
    const file = fx.write('run.jsonl', trajectory(Array.from({ length: 4 }, () => ['poll', { id: 1 }, 'same'])));
    const report = await analyzeWithTimeline(file);
    // Fields other detectors fill: a verdict of a detector this renderer has never heard of.
    const extend = (run: RunReport): RunReport => {
      const events = run.events.map((event) =>
        event.action === 'block'
          ? {
              ...event,
              detector: 'result_cycle_v9',
              period: 3,
              loopSignatures: ['a:1111111111', 'b:2222222222', 'c:3333333333'],
              wastedTokens: 12_345,
              wastedMs: 61_500, // shown in seconds; 2 minutes and more in minutes
            }
          : event.action === 'warn'
            ? { ...event, wastedTokens: 2_000, wastedMs: 900 }
            : event,
      );
      const calls = run.timeline!.calls.map((call) => ({
        ...call,
        events: call.events.map((event) => events.find((e) => e.call === event.call && e.action === event.action)!),
      }));
      return { ...run, events, timeline: { ...run.timeline!, calls } };
    };
    const html = renderHtmlReport({ ...report, runs: report.runs.map(extend) }, { version: '1' });
    expect(html).toContain('<span class="label block">BLOCK result_cycle_v9</span>');
    expect(html).toContain('wasted in a detected loop: up to 12,345 tokens, 61.5 s');
    expect(html).toContain('period 3');
    expect(html).toContain('loop of 3 calls: <code>11111111 22222222 33333333</code>');
    expect(html).toContain('12,345 tokens wasted · 61.5 s wasted');
    expect(html).toContain('2,000 tokens wasted · 900 ms wasted');
  });

  it('lists runs with findings first, open, and runs without findings closed', async () => {
    const quiet = fx.write('a-quiet.jsonl', trajectory([['read', {}, 'x']]));
    const looping = fx.write('b-loop.jsonl', trajectory(Array.from({ length: 4 }, () => ['read', {}, 'x'])));
    const html = renderHtmlReport(await analyze({ inputs: [fx.dir], config: CONFIG, timelineCalls: 50 }), {
      version: '1',
    });
    const sections = [
      ...html.matchAll(/<section class="run[^"]*" id="(run-\d+)" data-run="([^"]+)">\n<details( open)?>/g),
    ];
    expect(sections.map((match) => [match[2], match[3] === ' open'])).toEqual([
      [looping, true],
      [quiet, false],
    ]);
    expect(html).toContain(`<a href="#${sections[0][1]}">${looping}</a>`);
  });
});

describe('renderHtmlReport: many runs', () => {
  it(`draws every run with findings, and at most ${MAX_QUIET_RUNS_SHOWN} runs without, with a note`, async () => {
    fx.write('loop.jsonl', trajectory(Array.from({ length: 4 }, () => ['read', {}, 'x'])));
    fx.write('quiet.jsonl', trajectory([['read', {}, 'x']]));
    const report = await analyze({ inputs: [fx.dir], config: CONFIG, timelineCalls: 50 });
    const [looping, quiet] = report.runs[0].events.length > 0 ? report.runs : [...report.runs].reverse();
    const runs = [
      looping,
      ...Array.from({ length: MAX_QUIET_RUNS_SHOWN + 7 }, (_, i) => ({ ...quiet, id: `quiet-${i}` })),
    ];
    const html = renderHtmlReport({ ...report, runs }, { version: '1' });
    expect(html.match(/<section class="run/g)).toHaveLength(1 + MAX_QUIET_RUNS_SHOWN);
    expect(html).toContain(`data-run="${looping.id}"`);
    expect(html).toContain(`data-run="quiet-${MAX_QUIET_RUNS_SHOWN - 1}"`);
    expect(html).not.toContain(`data-run="quiet-${MAX_QUIET_RUNS_SHOWN}"`);
    expect(html).toContain('7 more runs without findings not drawn');
  });
});

describe('analyze --html (CLI)', () => {
  it('writes the report, keeps stdout as it was, and leaves the timeline out of --json', async () => {
    const file = fx.write('loop.jsonl', trajectory(Array.from({ length: 5 }, () => ['search', {}, 'same'])));
    const out = join(fx.dir, 'report.html');
    const plain = await runCli(['analyze', ...THRESHOLDS, file]);
    const withHtml = await runCli(['analyze', ...THRESHOLDS, '--html', out, file]);
    expect(withHtml).toEqual({ code: 0, stdout: plain.stdout, stderr: `HTML report written to ${out}\n` });
    const html = readFileSync(out, 'utf8');
    expect(callItems(html).map(([, kind]) => kind)).toEqual(['new', 'same-result', 'warn', 'block', 'block']);

    const json = await runCli(['analyze', '--json', ...THRESHOLDS, '--html', out, file]);
    const report = JSON.parse(json.stdout) as { runs: object[] };
    expect(report.runs[0]).not.toHaveProperty('timeline');
    expect(json.stdout).toBe((await runCli(['analyze', '--json', ...THRESHOLDS, file])).stdout);
  });

  it('--html-max-calls caps the calls kept per run', async () => {
    const file = fx.write('run.jsonl', trajectory(Array.from({ length: 20 }, (_, i) => ['read', { i }, 'x'])));
    const out = join(fx.dir, 'report.html');
    expect((await runCli(['analyze', '--html', out, '--html-max-calls', '8', file])).code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(callItems(html)).toHaveLength(6); // no finding: the first 4 and the latest 2
    expect(html).toContain('Showing 6 of 20 calls');
  });

  it('fails clearly, before analysing, when the report cannot be written', async () => {
    const file = fx.write('run.jsonl', trajectory([['read', {}, 'x']]));
    const missing = join(fx.dir, 'no-such-folder', 'report.html');
    expect(await runCli(['analyze', '--html', missing, file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `tool-loop-guard: cannot write the HTML report to ${JSON.stringify(missing)}: its folder does not exist\n`,
    });
    const folder = join(fx.dir, 'a-folder');
    mkdirSync(folder);
    expect(await runCli(['analyze', '--html', folder, file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `tool-loop-guard: cannot write the HTML report to ${JSON.stringify(folder)}: it is a folder\n`,
    });
    const underFile = join(file, 'report.html');
    expect((await runCli(['analyze', '--html', underFile, file])).stderr).toBe(
      `tool-loop-guard: cannot write the HTML report to ${JSON.stringify(underFile)}: a part of its path is not a folder\n`,
    );
  });

  it('rejects a bad --html-max-calls, and --html-max-calls without --html', async () => {
    const file = fx.write('run.jsonl', trajectory([['read', {}, 'x']]));
    const zero = await runCli(['analyze', '--html', join(fx.dir, 'r.html'), '--html-max-calls', '0', file]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--html-max-calls must be a positive integer, got "0"');
    const alone = await runCli(['analyze', '--html-max-calls', '5', file]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--html-max-calls needs --html <file>');
  });

  it('documents --html in the help', async () => {
    const { stdout } = await runCli(['analyze', '--help']);
    expect(stdout).toContain('--html <file>');
    expect(stdout).toContain('--html-max-calls <n>');
  });
});
