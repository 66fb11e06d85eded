/**
 * `npm run bench`, after the processor's bench: `tool-loop-guard serve`.
 *
 * - **Throughput**: the same pre-encoded OTLP/gRPC requests (traces of an agent span and 10
 *   tool calls, one trace in ten looping) sent to a `serve` process (judged, evidence spans and
 *   counters exported over OTLP/HTTP to a local sink) and to the collector alone forwarding them
 *   (otlp receiver → batch → otlp_grpc exporter, uncompressed as the requests are, to a local
 *   sink). Each process's CPU time (user + system, every thread, from /proc) over the load gives
 *   tool spans per second per core; the goal is serve / collector ≥ 1. The collector is the one
 *   `scripts/e2e-observability.sh` builds and caches (`TLG_OTELCOL=<binary>` picks another); without
 *   it that half is skipped, and said so.
 * - **Memory per live run**: runs held by `serve` (10 000 traces of 30 calls whose agent span has
 *   not come, so every run stays live), in a fresh process, against the processor's figure for the
 *   same shape (`memory.js live`).
 *
 * Usage: node .bench/build/bench/serve.js [--smoke] [--out=<file>] [--cpu-prof-dir=<dir>] (after
 * `node bench/run.mjs` built it; `npm run bench` runs both). `--smoke`: small loads; fails only on
 * errors. `--cpu-prof-dir`: the serve process writes a CPU profile there (`node --cpu-prof`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { benchOptions } from './cli-options.js';
import { writeReport } from './report-file.js';

const options = benchOptions(
  {
    smoke: { type: 'boolean', default: false },
    out: { type: 'string' },
    'cpu-prof-dir': { type: 'string' },
    child: { type: 'string' },
  },
  'node .bench/build/bench/serve.js [--smoke] [--out=<file>] [--cpu-prof-dir=<dir>]',
);
const SMOKE = options.smoke;
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const SERVE_MAIN = join(here, 'serve-process.js');
const EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
const CALLS_PER_TRACE = 10;
const SPANS_PER_REQUEST = 512;
const IN_FLIGHT = 4;
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** A process's CPU time so far (user + system, all threads), in seconds; Linux only. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * Waits until `pid` has used at most a tenth of a core over `quietMs` (not nothing: a profiler's
 * sampling, `--cpu-prof`, never stops), then returns its CPU time.
 */
async function settledCpu(pid: number, quietMs: number): Promise<number> {
  const allowance = quietMs / 1000 / 10;
  let base = cpuSeconds(pid);
  let quietSince = Date.now();
  for (;;) {
    await sleep(50);
    const now = cpuSeconds(pid);
    if (now - base > allowance) [base, quietSince] = [now, Date.now()];
    else if (Date.now() - quietSince >= quietMs) return now;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The load: `traces` traces of an agent span and 10 tool calls (~120 B of arguments, ~250 B of
 * result), one in ten calling the same tool with the same arguments and result ten times, encoded
 * as OTLP protobuf export requests of 512 spans, as a collector's batches are.
 */
function load(traces: number): { requests: Buffer[]; spans: number; toolSpans: number } {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'bench-agent', 'service.instance.id': 'bench-1' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const tracer = provider.getTracer('bench');
  const requests: Buffer[] = [];
  let spans = 0;
  let time = Date.now() - 3_600_000;
  for (let t = 0; t < traces; t += 1) {
    const looping = t % 10 === 0;
    const agent = tracer.startSpan('invoke_agent', {
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
      startTime: time,
    });
    const context = trace.setSpan(ROOT_CONTEXT, agent);
    for (let c = 0; c < CALLS_PER_TRACE; c += 1) {
      const n = looping ? 0 : c;
      const call = tracer.startSpan(
        'execute_tool read',
        {
          attributes: {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': c % 3 === 0 && !looping ? 'grep' : 'read',
            'gen_ai.tool.call.id': `call_${t}_${c}`,
            'gen_ai.tool.call.arguments': JSON.stringify({
              path: `/repo/t${t}/src/file-${n}.ts`,
              offset: n * 40,
              limit: 200,
            }),
          },
          startTime: (time += 3),
        },
        context,
      );
      call.setAttribute(
        'gen_ai.tool.call.result',
        JSON.stringify({ content: [{ type: 'text', text: `line ${n}\n`.repeat(20) }] }),
      );
      call.end((time += 2));
    }
    agent.end((time += 1));
    spans += CALLS_PER_TRACE + 1;
    if (memory.getFinishedSpans().length >= SPANS_PER_REQUEST) {
      requests.push(Buffer.from(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!));
      memory.reset();
    }
  }
  if (memory.getFinishedSpans().length > 0)
    requests.push(Buffer.from(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!));
  return { requests, spans, toolSpans: traces * CALLS_PER_TRACE };
}

/** Sends every request over OTLP/gRPC, `IN_FLIGHT` at a time; resolves when all were answered OK. */
async function send(address: string, requests: readonly Buffer[]): Promise<void> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), {
    'grpc.max_send_message_length': 64 * 1024 * 1024,
  });
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const body = requests[next++];
      for (;;) {
        const code = await new Promise<grpc.status>((resolve) =>
          client.makeUnaryRequest(
            EXPORT_PATH,
            (b: Buffer) => b,
            (b: Buffer) => b,
            body,
            (error) => resolve(error ? error.code : grpc.status.OK),
          ),
        );
        if (code === grpc.status.OK) break;
        // Refused (a full buffer): retried, as the collector's exporter does.
        if (code !== grpc.status.UNAVAILABLE) throw new Error(`export failed with gRPC status ${code}`);
        await sleep(100);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  client.close();
}

/** An OTLP/gRPC sink that acknowledges every export (the collector's downstream). */
async function grpcSink(): Promise<{ port: number; spansBytes: () => number; close(): void }> {
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
  let bytes = 0;
  const identity = (b: Buffer) => b;
  server.addService(
    {
      Export: {
        path: EXPORT_PATH,
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    },
    {
      Export: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
        bytes += call.request.length;
        done(null, Buffer.alloc(0));
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { port, spansBytes: () => bytes, close: () => server.forceShutdown() };
}

/** An OTLP/HTTP sink for serve's output; counts the evidence spans it receives. */
async function httpSink(): Promise<{ port: number; evidence: () => number; server: Server }> {
  let evidence = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces')
        evidence += Buffer.concat(chunks).toString('utf8').split('"run_guardrail tool-loop-guard"').length - 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, evidence: () => evidence, server };
}

/** Starts a child and waits for `ready` in its output; returns the child and the match. */
async function started(command: string, args: string[], ready: RegExp) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start:\n${output}`)), 30_000);
    const onData = (text: Buffer) => {
      output += text.toString('utf8');
      const found = ready.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}):\n${output}`)));
  });
  return { child, match, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface Throughput {
  readonly cpuSeconds: number;
  readonly toolSpansPerCpuSecond: number;
  readonly spansPerCpuSecond: number;
}

/** Sends the load to `address` and measures `pid`'s CPU time until it is quiet again. */
async function throughput(
  pid: number,
  address: string,
  work: ReturnType<typeof load>,
  quietMs: number,
): Promise<Throughput> {
  const before = await settledCpu(pid, 300);
  await send(address, work.requests);
  const after = await settledCpu(pid, quietMs);
  const seconds = after - before;
  return {
    cpuSeconds: seconds,
    toolSpansPerCpuSecond: work.toolSpans / seconds,
    spansPerCpuSecond: work.spans / seconds,
  };
}

/** The collector `scripts/e2e-observability.sh` builds from collector/builder-config.yaml, if it is cached. */
function collectorBinary(): string | undefined {
  const given = process.env.TLG_OTELCOL;
  if (given) return existsSync(given) ? given : undefined;
  const manifest = readFileSync(join(root, 'collector', 'builder-config.yaml'), 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(#|$)/.test(line))
    .map((line) => `${line}\n`)
    .join('');
  const key = createHash('sha256').update(manifest).digest('hex').slice(0, 16);
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'tool-loop-guard', 'e2e');
  if (!existsSync(cache)) return undefined;
  const built = readdirSync(cache)
    .filter((name) => name.startsWith(`otelcol-${key}-`) && !name.endsWith('.tmp'))
    .map((name) => join(cache, name, '_build', 'otelcol-tool-loop-guard'))
    .filter((path) => existsSync(path));
  return built.at(-1);
}

async function measureServe(work: ReturnType<typeof load>) {
  const sink = await httpSink();
  const serve = await started(
    process.execPath,
    [
      ...(options['cpu-prof-dir'] !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${options['cpu-prof-dir']}`] : []),
      SERVE_MAIN,
      'serve',
      '--grpc',
      '127.0.0.1:0',
      '--http',
      'off',
      '--export',
      `http://127.0.0.1:${sink.port}`,
      '--enable',
      '--warning',
      '3',
      '--critical',
      '5',
      '--grace-ms',
      '100',
      '--max-buffered-spans',
      '1000000',
      '--report-interval-ms',
      '0',
    ],
    /OTLP\/gRPC (127\.0\.0\.1:\d+)/,
  );
  try {
    const result = await throughput(serve.child.pid!, serve.match[1], work, 1500);
    await stop(serve.child);
    return { ...result, evidenceSpans: sink.evidence() };
  } finally {
    await stop(serve.child);
    sink.server.close();
  }
}

async function measureCollector(binary: string, work: ReturnType<typeof load>) {
  const sink = await grpcSink();
  const dir = mkdtempSync(join(tmpdir(), 'tlg-bench-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const config = join(dir, 'forward.yaml');
  writeFileSync(
    config,
    [
      'receivers:',
      '  otlp:',
      '    protocols:',
      `      grpc: {endpoint: "127.0.0.1:${port}", max_recv_msg_size_mib: 64}`,
      'processors:',
      '  batch: {}',
      'exporters:',
      '  otlp_grpc:',
      `    endpoint: "127.0.0.1:${sink.port}"`,
      '    tls: {insecure: true}',
      '    compression: none',
      'service:',
      '  telemetry: {metrics: {level: none}, logs: {level: warn}}',
      '  pipelines:',
      '    traces: {receivers: [otlp], processors: [batch], exporters: [otlp_grpc]}',
      '',
    ].join('\n'),
  );
  const collector = spawn(binary, [`--config=${config}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  collector.stderr.on('data', (text: Buffer) => (output += text.toString('utf8')));
  try {
    // Ready once it accepts an export.
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (collector.exitCode !== null) throw new Error(`the collector exited:\n${output}`);
      try {
        await send(`127.0.0.1:${port}`, [Buffer.alloc(0)]);
        break;
      } catch {
        if (Date.now() > deadline) throw new Error(`the collector did not start:\n${output}`);
        await sleep(200);
      }
    }
    return await throughput(collector.pid!, `127.0.0.1:${port}`, work, 1000);
  } finally {
    await stop(collector);
    sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * In a fresh process (`--child=memory`): heap and ArrayBuffers held per live run by serve's
 * judging (the spans read and hashed as received, then judged; 30 calls per run, their agent
 * span not there yet, so every run stays live), with evidence spans on (calls keep their span
 * references for the links) and off.
 */
async function memoryChild(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const heap = () => {
    for (let i = 0; i < 3; i += 1) gc();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + arrayBuffers;
  };
  const { SpanIntake } = await import('../src/cli/serve/span-intake.js');
  const { RunJudge } = await import('../src/cli/serve/run-judge.js');
  const { createDigester } = await import('../src/engine/hashing/digest.js');
  const { AgentConfigResolver } = await import('../src/config/agent-config-resolver.js');
  const { DEFAULT_ADAPTERS } = await import('../src/spans/adapters/index.js');
  const intake = new SpanIntake(DEFAULT_ADAPTERS, await createDigester());
  const resolver = new AgentConfigResolver({ tools: { loopDetection: { enabled: true } } });
  const runs = SMOKE ? 500 : 10_000;
  const calls = 30;
  const results: Record<string, number> = {};
  for (const keepCallRefs of [true, false]) {
    const judge = new RunJudge({
      replay: {
        configFor: (agentId) => resolver.forAgent(agentId),
        runIdleTtlMs: 3_600_000,
        maxLiveRuns: runs * 2,
        shadow: true,
        keepCallRefs,
      },
      maxProcesses: 10,
      observerFor: () => ({ started: () => undefined, finished: () => undefined, released: () => undefined }),
    });
    const batch = (prefix: string, r: number) => {
      const traceId = createHash('md5').update(`${prefix}${r}`).digest('hex');
      const spans = [];
      for (let j = 0; j < calls; j += 1) {
        const n = j % 5 === 4 ? j - 1 : j;
        spans.push({
          traceId,
          spanId: createHash('md5').update(`${prefix}${r}/${j}`).digest('hex').slice(0, 16),
          parentSpanId: 'ffffffffffffffff',
          name: 'execute_tool read',
          startTimeUnixNano: String(1_700_000_000_000_000_000n + BigInt(r * 40 + j) * 1_000_000n),
          endTimeUnixNano: String(1_700_000_000_000_500_000n + BigInt(r * 40 + j) * 1_000_000n),
          attributes: [
            { key: 'gen_ai.tool.name', value: { stringValue: ['read', 'grep', 'edit'][j % 3] } },
            { key: 'gen_ai.tool.call.id', value: { stringValue: `call_${r}_${j}` } },
            {
              key: 'gen_ai.tool.call.arguments',
              value: {
                stringValue: JSON.stringify({
                  path: `/repo/run-${r}/src/file-${n}.ts`,
                  offset: n * 40,
                  limit: 200,
                  pattern: `needle-${n}`,
                }),
              },
            },
            {
              key: 'gen_ai.tool.call.result',
              value: {
                stringValue: JSON.stringify({ content: [{ type: 'text', text: `line ${j} of run ${r}\n`.repeat(8) }] }),
              },
            },
          ],
        });
      }
      return intake.read({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] },
            scopeSpans: [{ spans }],
          },
        ],
      }).spans;
    };
    for (let r = 0; r < 200; r += 1) judge.judge(batch('warm', r), 0);
    const before = heap();
    for (let r = 0; r < runs; r += 1) judge.judge(batch('run', r), 0);
    const after = heap();
    if (judge.liveRuns !== runs + 200) throw new Error(`expected ${runs + 200} live runs, got ${judge.liveRuns}`);
    results[keepCallRefs ? 'bytesPerRun' : 'bytesPerRunWithoutEvidence'] = (after - before) / runs;
    judge.releaseAll('shutdown');
  }
  console.log(JSON.stringify({ runs, callsPerRun: calls, ...results }));
}

async function main(): Promise<void> {
  if (process.platform !== 'linux') {
    console.log('serve bench: CPU time is read from /proc; skipped on this platform');
    return;
  }
  const traces = SMOKE ? 500 : 20_000;
  const work = load(traces);
  console.log(
    `\nserve: ${work.toolSpans} tool spans in ${traces} traces (${work.spans} spans, ${work.requests.length} OTLP/gRPC requests of up to ${SPANS_PER_REQUEST} spans)`,
  );
  const figures: Record<string, number> = {};
  const details: Record<string, unknown> = { traces, spans: work.spans, toolSpans: work.toolSpans };

  const served = await measureServe(work);
  details.serve = served;
  figures['serve: tool spans / s / core'] = served.toolSpansPerCpuSecond;
  console.log(
    `  serve (judged, evidence out): ${served.cpuSeconds.toFixed(2)} CPU s, ${served.toolSpansPerCpuSecond.toFixed(0)} tool spans / s / core (${served.spansPerCpuSecond.toFixed(0)} spans); ${served.evidenceSpans} evidence spans`,
  );
  const expectedEvidence = Math.ceil(traces / 10);
  if (served.evidenceSpans < expectedEvidence)
    throw new Error(`expected at least ${expectedEvidence} evidence spans, got ${served.evidenceSpans}`);

  const binary = collectorBinary();
  if (binary === undefined)
    console.log(
      '  collector: skipped, no collector binary (bash scripts/e2e-observability.sh builds and caches it; or set TLG_OTELCOL)',
    );
  else {
    const forwarded = await measureCollector(binary, work);
    details.collector = { binary, ...forwarded };
    figures['collector forwarding: tool spans / s / core'] = forwarded.toolSpansPerCpuSecond;
    figures['serve / collector, per core (goal >= 1)'] = served.toolSpansPerCpuSecond / forwarded.toolSpansPerCpuSecond;
    console.log(
      `  collector (receive, batch, forward): ${forwarded.cpuSeconds.toFixed(2)} CPU s, ${forwarded.toolSpansPerCpuSecond.toFixed(0)} tool spans / s / core; serve / collector ${(served.toolSpansPerCpuSecond / forwarded.toolSpansPerCpuSecond).toFixed(2)} (goal >= 1)`,
    );
  }

  const child = (args: string[]) => {
    const run = spawnSync(process.execPath, ['--expose-gc', ...args], { encoding: 'utf8', cwd: root });
    if (run.status !== 0) throw new Error(`${args.join(' ')} failed:\n${run.stderr}`);
    return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
  };
  const serveMemory = child([fileURLToPath(import.meta.url), '--child=memory', ...(SMOKE ? ['--smoke'] : [])]);
  const processorMemory = child([join(here, 'memory.js'), 'live', ...(SMOKE ? ['--smoke'] : [])]);
  details.memory = { serve: serveMemory, processor: processorMemory };
  figures['serve: B per live run (30 calls, evidence on)'] = serveMemory.bytesPerRun;
  figures['serve: B per live run (evidence off)'] = serveMemory.bytesPerRunWithoutEvidence;
  figures['processor: B per live run (30 records)'] = processorMemory.bytesPerRun;
  figures['serve / processor, B per live run (goal <= 1, evidence off)'] =
    serveMemory.bytesPerRunWithoutEvidence / processorMemory.bytesPerRun;
  console.log(
    `  memory per live run (${serveMemory.runs} runs x 30 calls): serve ${serveMemory.bytesPerRun.toFixed(0)} B with evidence links, ${serveMemory.bytesPerRunWithoutEvidence.toFixed(0)} B without; the processor ${processorMemory.bytesPerRun.toFixed(0)} B (no evidence)`,
  );
  const out = options.out ?? join(root, '.bench', SMOKE ? 'serve-smoke.json' : 'serve.json');
  writeReport(out, { smoke: SMOKE, figures, details });
  console.log(`  written to ${out}`);
}

if (options.child === 'memory') await memoryChild();
else if (options.child !== undefined) throw new Error(`unknown --child=${options.child}`);
else await main();
