// The HTML report of a looping run, opened in a real headless Chromium (Debian's `chromium`,
// driven by playwright-core, which never downloads a browser: it has no install script, and it
// is always given the system binary's path). The report is written by the real CLI from an OTLP
// file generated here: one run cycles read→grep→list→read… with unchanged results until the
// opt-in cycle detector blocks it; another calls a tool whose recorded name is HTML.
//
// Skipped with a message when no Chromium is installed, unless CI is set: there a missing
// browser fails the test (scripts/ci-observability.sh installs it with apt).
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSpan, fixtureDir, otlpDocument, runCli, type FixtureSpan } from '../helpers.js';
import { colourCounts, decodePng } from '../png.js';

/** Debian's `chromium` package installs /usr/bin/chromium; CHROMIUM_PATH names another binary. */
const CHROMIUM = (
  process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ['/usr/bin/chromium', '/usr/bin/chromium-browser']
).find((path) => isExecutable(path));
const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';
const MISSING = CHROMIUM
  ? ''
  : `Chromium not found (${process.env.CHROMIUM_PATH ? `CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is no executable` : 'no /usr/bin/chromium or /usr/bin/chromium-browser'}); install it with ` +
    '`apt-get install --no-install-recommends chromium` or run scripts/ci-observability.sh';
if (MISSING && !IN_CI) console.warn(`[html-report-chromium] SKIPPED: ${MISSING}`);

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const VIEWPORT = { width: 1280, height: 900 };
const HOSTILE_TOOL = '<img src=x onerror=alert(1)>';
const CYCLE_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const HOSTILE_TRACE = '5cf92f3577b34da6a3ce929d0e0e4737';

/** An agent's run span, then `calls` as sequential tool spans, each after a model call reporting 1 280 tokens. */
function runSpans(calls: readonly { tool: string; args: object; result: string }[]): FixtureSpan[] {
  const spans: FixtureSpan[] = [
    {
      spanId: 'a000000000000001',
      name: 'invoke_agent',
      start: 0,
      end: 20 * calls.length + 10,
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    },
  ];
  calls.forEach((call, i) => {
    spans.push(chatSpan(i + 1, 20 * i + 1, 20 * i + 8, { input: 1200, output: 80 }));
    spans.push({
      spanId: `b${String(i + 1).padStart(15, '0')}`,
      parentSpanId: 'a000000000000001',
      name: `execute_tool ${call.tool}`,
      start: 20 * i + 10,
      end: 20 * i + 15,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': call.tool,
        'gen_ai.tool.call.arguments': JSON.stringify(call.args),
        'gen_ai.tool.call.result': call.result,
      },
    });
  });
  return spans;
}

/** Plans once, then cycles read → grep → list with unchanged results: a cycle of period 3. */
function cyclingRun(): FixtureSpan[] {
  const cycle = [
    { tool: 'read', args: { path: '/src/app.ts' }, result: 'export const app = 1;' },
    { tool: 'grep', args: { pattern: 'app' }, result: 'src/app.ts:1' },
    { tool: 'list', args: { dir: 'src' }, result: 'app.ts' },
  ];
  return runSpans([
    { tool: 'plan', args: { goal: 'fix the bug' }, result: 'plan ready' },
    ...Array.from({ length: 12 }, (_, i) => cycle[i % 3]),
  ]);
}

function hostileRun(): FixtureSpan[] {
  return runSpans(
    Array.from({ length: 6 }, () => ({
      tool: HOSTILE_TOOL,
      args: { q: '"><script>alert(2)</script>' },
      result: '<b onmouseover=alert(3)>same</b>',
    })),
  );
}

/** The computed background colour of an element, as `r,g,b`. */
async function background(locator: Locator): Promise<string> {
  // Runs in the page (the test's own types have no DOM).
  const colour = await locator.evaluate(
    (element) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(element)
        .backgroundColor,
  );
  const match = /^rgba?\((\d+), (\d+), (\d+)/.exec(colour);
  if (!match) throw new Error(`unexpected colour ${colour}`);
  return `${match[1]},${match[2]},${match[3]}`;
}

async function expectInViewport(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  await expect.poll(() => locator.isVisible()).toBe(true);
  const box = await locator.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.width).toBeGreaterThan(40);
  expect(box!.height).toBeGreaterThan(40);
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(VIEWPORT.width);
  expect(box!.y + box!.height).toBeLessThanOrEqual(VIEWPORT.height);
  return box!;
}

describe.skipIf(MISSING !== '' && !IN_CI)(
  `HTML report in headless Chromium${MISSING !== '' && !IN_CI ? ` (skipped: ${MISSING})` : ''}`,
  () => {
    let fx: ReturnType<typeof fixtureDir> | undefined;
    let browser: Browser | undefined;
    let page: Page;
    const dialogs: string[] = [];
    const requests: string[] = [];
    let stdout = '';

    beforeAll(async () => {
      if (!CHROMIUM) throw new Error(`${MISSING} — CI is set, and the HTML report must be checked in Chromium there`);
      fx = fixtureDir();
      const input = fx.write(
        'traces.jsonl',
        [otlpDocument(CYCLE_TRACE, cyclingRun()), otlpDocument(HOSTILE_TRACE, hostileRun())]
          .map((document) => JSON.stringify(document))
          .join('\n') + '\n',
      );
      // OpenClaw's rules at warning 3 / critical 5, and the opt-in result-aware cycle detector.
      const config = fx.write(
        'loop.json5',
        '{ tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 5, cycleCriticalLaps: 2, detectors: { resultCycle: true } } } }',
      );
      const report = join(fx.dir, 'report.html');
      const cli = await runCli(['analyze', '--config', config, '--html', report, input]);
      expect(cli.code).toBe(0);
      expect(cli.stderr).toBe(`HTML report written to ${report}\n`);
      stdout = cli.stdout;
      expect(readFileSync(report, 'utf8')).not.toContain('<img');

      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
      page = await browser.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1 });
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) requests.push(request.url());
      });
      await page.goto(pathToFileURL(report).href);
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      fx?.cleanup();
    });

    it('shows the cycling run first, its blocks and its repeated calls in the first screen, in distinct colours', async () => {
      expect(stdout).toContain('block  result_cycle');
      const run = page.locator(`section.run[data-run^="${CYCLE_TRACE}"]`);
      await expect.poll(() => run.isVisible()).toBe(true);
      const summary = await run.getByTestId('summary').innerText();
      expect(summary).toMatch(
        /^13 calls · 9 repeats · cycle of period 3 · 6 blocks · first block at call 8 · wasted in a detected loop: up to [\d,]+ tokens, \d+ ms · after a warning or block: 0 left the loop, 5 repeated it, 1 ended the run$/,
      );

      // The cycle's second lap is blocked, every member of it (the opt-in detector's per-cycle breaking).
      const blocks = run.locator('li.call[data-kind="block"]');
      expect(await blocks.count()).toBe(6);
      const block = run.locator('li.call[data-call="8"]');
      expect(await block.getAttribute('data-kind')).toBe('block');
      const blockBox = await expectInViewport(block);
      expect(await block.innerText()).toContain('BLOCK result_cycle');
      expect(await block.innerText()).toContain('not run: blocked');
      await expectInViewport(blocks.last());

      const cycle = run.locator('li.call[data-kind="cycle"]');
      expect(await cycle.count()).toBe(6);
      for (const call of await cycle.all()) {
        expect(await call.innerText()).toContain('CYCLE ×3');
        await expectInViewport(call);
      }
      expect(await run.locator('li.call .label.same-result').count()).toBe(3);
      expect(await run.locator('li.call.in-loop').count()).toBeGreaterThanOrEqual(6);
      const findings = await run.locator('table.findings').innerText();
      expect(findings).toContain('period 3 · loop of 3 calls');
      expect(findings).toMatch(/tokens wasted/);
      const plain = run.locator('li.call[data-kind="new"]');
      expect(await plain.count()).toBe(1);
      expect(await plain.innerText()).toContain('plan');
      const warn = page.locator('li.call[data-kind="warn"]').first();

      const colours = {
        block: await background(block),
        cycle: await background(cycle.first()),
        warn: await background(warn),
        new: await background(plain),
      };
      expect(new Set(Object.values(colours)).size).toBe(4);
      const [r, g, b] = colours.block.split(',').map(Number);
      expect(r).toBeGreaterThan(150);
      expect(g + b).toBeLessThan(r);

      // The screenshot is a real image of this page: the viewport's size, many colours, and the
      // block's own colour filling most of the block's box.
      const image = decodePng(await page.screenshot());
      expect([image.width, image.height]).toEqual([VIEWPORT.width, VIEWPORT.height]);
      const all = colourCounts(image);
      expect(all.size).toBeGreaterThan(50);
      expect(Math.max(...all.values())).toBeLessThan(0.9 * image.width * image.height);
      const inside = colourCounts(image, {
        x: blockBox.x + 4,
        y: blockBox.y + 4,
        width: blockBox.width - 8,
        height: blockBox.height - 8,
      });
      const [dominant] = [...inside.entries()].sort((a, b) => b[1] - a[1]);
      expect(dominant[0]).toBe(colours.block);
      expect(dominant[1]).toBeGreaterThan(0.4 * (blockBox.width - 8) * (blockBox.height - 8));
    });

    it('shows a hostile recorded tool name as text: no element, no script, no request', async () => {
      const run = page.locator(`section.run[data-run^="${HOSTILE_TRACE}"]`);
      const tools = run.locator('li.call .tool');
      expect(await tools.count()).toBe(6);
      expect(await tools.first().textContent()).toBe(HOSTILE_TOOL);
      expect(await run.locator('li.call[data-kind="block"]').count()).toBeGreaterThanOrEqual(1);
      expect(await run.locator('table.findings').innerText()).toContain(HOSTILE_TOOL);
      expect(await page.locator('img, script, iframe, object, embed, b').count()).toBe(0);
      await run.locator('li.call').first().hover();
      expect(dialogs).toEqual([]);
      expect(requests).toEqual([]);
    });
  },
);
