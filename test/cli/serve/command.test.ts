/**
 * The `serve` command line: every option is in its help, each resolves flag → environment
 * variable → default (a bad variable warns and falls back, a bad flag is a usage error), and the
 * built bin runs until SIGTERM, then stops cleanly; killed, it says at its next start what it lost.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/cli.js';
import { SERVE_USAGE } from '../../../src/cli/serve/command.js';
import {
  listenAddress,
  readServeArguments,
  SERVE_DEFAULTS,
  SERVE_PARSE_OPTIONS,
} from '../../../src/cli/serve/serve-options.js';
import { UsageError } from '../../../src/cli/options.js';

const BIN = fileURLToPath(new URL('../../../dist/esm/cli/main.js', import.meta.url));

function io() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: (text: string) => void (out.stdout += text),
      stderr: (text: string) => void (out.stderr += text),
      stderrIsTTY: false,
    },
  };
}

describe('tool-loop-guard serve --help', () => {
  it('documents every option', async () => {
    const { out, io: cli } = io();
    expect(await main(['serve', '--help'], cli)).toBe(0);
    expect(out.stdout).toBe(SERVE_USAGE);
    const undocumented = Object.keys(SERVE_PARSE_OPTIONS).filter((name) => !SERVE_USAGE.includes(`--${name}`));
    expect(undocumented).toEqual([]);
  });

  it('is listed among the commands', async () => {
    const { out, io: cli } = io();
    await main(['--help'], cli);
    expect(out.stdout).toMatch(/^ {2}serve {2,}loop detection as an OTLP service/m);
  });
});

describe('serve options', () => {
  const read = (values: Record<string, string | boolean>, env: Record<string, string> = {}) => {
    const warnings: string[] = [];
    return { ...readServeArguments(values, env, (message) => warnings.push(message)), warnings };
  };

  it('resolve flag, then environment variable, then default', () => {
    const { settings } = read(
      { 'grace-ms': '50' },
      { TOOL_LOOP_GUARD_SERVE_GRACE_MS: '70', TOOL_LOOP_GUARD_SERVE_MAX_WAIT_MS: '900' },
    );
    expect(settings).toMatchObject({
      graceMs: 50,
      maxWaitMs: 900,
      maxBufferedSpans: SERVE_DEFAULTS.maxBufferedSpans,
      grpc: { host: '127.0.0.1', port: 4417 },
      http: { host: '127.0.0.1', port: 4418 },
      exportUrl: undefined,
    });
    expect(read({ grpc: '0.0.0.0:5317', http: 'off', export: 'http://collector:4318/' }).settings).toMatchObject({
      grpc: { host: '0.0.0.0', port: 5317 },
      exportUrl: 'http://collector:4318',
    });
    expect(read({}, { TOOL_LOOP_GUARD_SERVE_EXPORT: 'none' }).settings.exportUrl).toBeNull();
  });

  it('warn about a bad environment variable, naming it, and fall back', () => {
    const { settings, warnings } = read(
      {},
      {
        TOOL_LOOP_GUARD_SERVE_GRACE_MS: 'soon',
        TOOL_LOOP_GUARD_SERVE_GRPC: 'nowhere:port',
        TOOL_LOOP_GUARD_SERVE_LOG_LEVEL: 'loud',
      },
    );
    expect(settings.graceMs).toBe(SERVE_DEFAULTS.graceMs);
    expect(settings.grpc).toEqual({ host: '127.0.0.1', port: 4417 });
    expect(settings.logLevel).toBe('info');
    expect(warnings).toEqual([
      expect.stringContaining('TOOL_LOOP_GUARD_SERVE_GRPC'),
      expect.stringContaining('TOOL_LOOP_GUARD_SERVE_LOG_LEVEL'),
      'TOOL_LOOP_GUARD_SERVE_GRACE_MS="soon" must be an integer of at least 0; using 3000'.replace(
        '3000',
        String(SERVE_DEFAULTS.graceMs),
      ),
    ]);
  });

  it('refuse a bad flag as a usage error', () => {
    expect(() => read({ 'grace-ms': '-1' })).toThrow(UsageError);
    expect(() => read({ export: 'ftp://x' })).toThrow('--export must be an http(s) URL or none');
    expect(() => read({ grpc: 'off', http: 'off' })).toThrow('nothing would receive spans');
    expect(() => read({ mode: 'loud' })).toThrow('--mode must be enforce or shadow');
    expect(() => read({ 'hash-seed': 'x' })).toThrow('--hash-seed');
    expect(() => listenAddress('grpc', '1.2.3.4:99999')).toThrow('--grpc must be host:port');
    expect(listenAddress('http', '[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(listenAddress('http', '4000')).toEqual({ host: '127.0.0.1', port: 4000 });
  });

  it('pass the processor options on', () => {
    expect(
      read({
        mode: 'shadow',
        'max-live-runs': '7',
        'recovery-window': '0',
        'evidence-spans': 'off',
        'hash-seed': 'random',
      }).processor,
    ).toEqual({
      mode: 'shadow',
      maxLiveRuns: 7,
      recoveryWindow: 0,
      evidenceSpans: false,
      hashSeed: 'random',
    });
  });
});

/** The built bin's `serve`, started with `args`; resolves once it listens. */
async function startBin(args: readonly string[]) {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--grpc', '127.0.0.1:0', '--http', '127.0.0.1:0', '--export', 'none', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output = { stderr: '' };
  child.stderr.setEncoding('utf8').on('data', (text: string) => (output.stderr += text));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const http = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${output.stderr}`)), 20_000);
    child.stderr.on('data', () => {
      const match = /OTLP\/HTTP (127\.0\.0\.1:\d+)/.exec(output.stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
  });
  return { child, output, exited, http };
}

/** Posts one tool span of an agent over OTLP/HTTP JSON; returns the response status. */
async function postToolSpan(http: string): Promise<number> {
  const posted = await fetch(`http://${http}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: 'b7ad6b7169203331',
                  parentSpanId: '00f067aa0ba902b7',
                  name: 'execute_tool read',
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000000001000000',
                  attributes: [{ key: 'gen_ai.tool.name', value: { stringValue: 'read' } }],
                },
              ],
            },
          ],
        },
      ],
    }),
  });
  return posted.status;
}

describe('the built bin', () => {
  it('serves until SIGTERM, then judges what is buffered, says so and exits 0', async () => {
    const { child, output, exited, http } = await startBin([]);
    expect((await fetch(`http://${http}/health`)).status).toBe(200);
    expect(await postToolSpan(http)).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output.stderr).toContain('info SIGTERM: stopping');
    expect(output.stderr).toContain('stopping: judged the 1 buffered spans of 1 traces at once; 1 in-memory runs lost');
    expect(output.stderr).toMatch(/info stopped: 1 spans accepted/);
  }, 30_000);

  it('killed, reports at its next start how many in-memory runs it lost (--state-file)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tlg-serve-state-'));
    const stateFile = join(dir, 'serve-1.state');
    try {
      const args = ['--state-file', stateFile, '--max-wait-ms', '50', '--instance-id', 'serve-1'];
      const first = await startBin(args);
      expect(await postToolSpan(first.http)).toBe(200);
      // Judged after --max-wait-ms, the run is held; the file says so within a second.
      await vi.waitFor(
        () => expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toMatchObject({ liveRuns: 1, bufferedSpans: 0 }),
        { timeout: 10_000, interval: 100 },
      );
      first.child.kill('SIGKILL');
      await first.exited;

      const second = await startBin(args);
      expect(second.output.stderr).toMatch(
        new RegExp(
          `warn the replica before this one \\(pid ${first.child.pid}, service.instance.id serve-1\\) did not stop \\(killed or crashed\\): 1 in-memory runs lost and 0 received spans unjudged`,
        ),
      );
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
      // Stopped cleanly: nothing to report at the next start.
      expect(existsSync(stateFile)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
