// End-to-end alert path on 127.0.0.1, without Docker:
//
//   spans with tool-loop events ──OTLP/HTTP JSON (real @opentelemetry/exporter-trace-otlp-http)──►
//   local receiver that counts span events like the collector's count connector (configured from the real
//   collector/otel-collector.yaml) and serves Prometheus text on /metrics ──scrape 1s──►
//   real Prometheus (Debian `prometheus`) with the real rule files ──► real Alertmanager (Debian
//   `prometheus-alertmanager`) with the real routing tree ──► local webhook receives the
//   AgentCompactionLoopPersisted page.
//
// Differences from production, all in temp copies: Prometheus scrape/evaluation intervals are 1s;
// Alertmanager group_wait/group_interval are 1s and the webhook URLs point at the local webhook.
// The rule files are copied byte for byte (the page rule has no `for:`, so nothing is shortened there).
// Skipped, with a message, when the prometheus / alertmanager binaries are not installed
// (scripts/ci-observability.sh installs them with apt).
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { DEMO_CONFIG, runDemoAgents } from '../../src/cli/demo.js';
import { ToolLoopSpanProcessor } from '../../src/otel/processor.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SERVICE_NAME = 'tool-loop-guard-e2e';
const AGENT_ID = 'compaction-looper'; // the demo agent whose loop persists after compaction
const TEST_TIMEOUT_MS = 60_000;

function which(bin: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const p = join(dir, bin);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* not here */
    }
  }
  return undefined;
}
const PROMETHEUS = which('prometheus');
const ALERTMANAGER = which('alertmanager') ?? which('prometheus-alertmanager'); // Debian names it prometheus-alertmanager
const SKIP_REASON =
  PROMETHEUS && ALERTMANAGER
    ? ''
    : `prometheus/alertmanager binaries not found (prometheus=${PROMETHEUS ?? 'missing'}, alertmanager=${ALERTMANAGER ?? 'missing'}); ` +
      'install with `apt-get install --no-install-recommends prometheus prometheus-alertmanager` or run scripts/ci-observability.sh';
if (SKIP_REASON) console.warn(`[alert-e2e] SKIPPED: ${SKIP_REASON}`);

// ── a stand-in for the collector's count connector + prometheus exporter ──────────────────────────
type CountMetric = { promName: string; event: string; attrs: Array<{ key: string; defaultValue?: string }> };

/** The part of collector/otel-collector.yaml this stand-in reads: the count connector's span-event metrics. */
interface CollectorConfig {
  connectors: {
    count: {
      spanevents: Record<string, { conditions: string[]; attributes?: Array<{ key: string; default_value?: string }> }>;
    };
  };
}

/** Reads the count connector's span-event metrics from the real collector config. */
function countMetricsFromCollectorConfig(): CountMetric[] {
  const cfg = YAML.parse(readFileSync(join(ROOT, 'collector/otel-collector.yaml'), 'utf8')) as CollectorConfig;
  const out: CountMetric[] = [];
  for (const [metric, def] of Object.entries(cfg.connectors.count.spanevents)) {
    const m = /^\s*(?:spanevent\.)?name\s*==\s*"([^"]+)"\s*$/.exec(def.conditions[0]);
    if (!m) throw new Error(`unsupported count condition ${def.conditions[0]}`);
    out.push({
      promName: `${metric.replace(/[^A-Za-z0-9_]/g, '_')}_total`,
      event: m[1],
      attrs: (def.attributes ?? []).map((a) => ({ key: a.key, defaultValue: a.default_value })),
    });
  }
  return out;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
const anyValueToString = (v: AnyValue | undefined): string | undefined =>
  v === undefined
    ? undefined
    : (v.stringValue ??
      (v.intValue !== undefined
        ? String(v.intValue)
        : v.doubleValue !== undefined
          ? String(v.doubleValue)
          : v.boolValue !== undefined
            ? String(v.boolValue)
            : undefined));
type KeyValue = { key: string; value: AnyValue };
/** The fields of an OTLP/HTTP JSON trace export request that the stand-in counts. */
interface OtlpTraceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ events?: Array<{ name: string; attributes?: KeyValue[] }> }> }>;
  }>;
}
const attrMap = (attrs: KeyValue[] | undefined) =>
  new Map((attrs ?? []).map((a) => [a.key, anyValueToString(a.value)]));
const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

class CountingReceiver {
  readonly counters = new Map<string, Map<string, number>>(); // metric -> rendered label set -> count
  spansReceived = 0;
  eventsReceived = 0;
  constructor(private readonly metrics: CountMetric[]) {}

  handle(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === 'GET' && req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(this.render());
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      res.writeHead(415).end('only OTLP/HTTP JSON is supported by this stand-in');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        this.ingest(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraceRequest);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (e) {
        res.writeHead(400).end(String(e));
      }
    });
  }

  private ingest(body: OtlpTraceRequest): void {
    for (const rs of body.resourceSpans ?? []) {
      const job = attrMap(rs.resource?.attributes).get('service.name') ?? '';
      for (const ss of rs.scopeSpans ?? []) {
        for (const span of ss.spans ?? []) {
          this.spansReceived++;
          for (const ev of span.events ?? []) {
            this.eventsReceived++;
            const attrs = attrMap(ev.attributes);
            for (const m of this.metrics.filter((x) => x.event === ev.name)) {
              const labels: Array<[string, string]> = [['job', job]];
              for (const a of m.attrs) {
                const v = attrs.get(a.key) ?? a.defaultValue;
                if (v !== undefined) labels.push([a.key.replace(/[^A-Za-z0-9_]/g, '_'), v]);
              }
              const key = labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',');
              const series = this.counters.get(m.promName) ?? new Map<string, number>();
              series.set(key, (series.get(key) ?? 0) + 1);
              this.counters.set(m.promName, series);
            }
          }
        }
      }
    }
  }

  render(): string {
    let out = '';
    for (const [name, series] of this.counters) {
      out += `# TYPE ${name} counter\n`;
      for (const [labels, v] of series) out += `${name}{${labels}} ${v}\n`;
    }
    return out;
  }
}

// ── helpers ───────────────────────────────────────────────────────────────────────────────────────
function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createNetServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => res(port));
    });
  });
}
function listen(server: Server): Promise<number> {
  return new Promise((res, rej) => {
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      res(typeof addr === 'object' && addr ? addr.port : 0);
    });
  });
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor<T>(what: string, deadline: number, probe: () => Promise<T | undefined>): Promise<T> {
  let lastError: string | undefined;
  while (Date.now() < deadline) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      lastError = String(e);
    }
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}`);
}

type Started = { name: string; child: ChildProcess; log: string[] };
const started: Started[] = [];
function start(name: string, bin: string, args: string[]): Started {
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const s: Started = { name, child, log: [] };
  const keep = (b: Buffer) => {
    s.log.push(b.toString('utf8'));
    if (s.log.length > 200) s.log.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  started.push(s);
  return s;
}
async function stopByPid(s: Started): Promise<void> {
  const { child } = s;
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  process.kill(child.pid, 'SIGTERM');
  const gone = await Promise.race([exited.then(() => true), sleep(5_000).then(() => false)]);
  if (!gone && child.exitCode === null && child.signalCode === null) {
    process.kill(child.pid, 'SIGKILL');
    await Promise.race([exited, sleep(2_000)]);
  }
}
const logsOf = () =>
  started.map((s) => `--- ${s.name} (pid ${s.child.pid}) ---\n${s.log.join('').slice(-3000)}`).join('\n');

/** The fields of Alertmanager's webhook payload that the test reads; optional where a payload may lack them. */
interface AlertmanagerWebhookBody {
  receiver?: string;
  alerts?: Array<{ status?: string; labels?: Record<string, string>; annotations?: Record<string, string> }>;
}
type WebhookCall = { path: string; body: AlertmanagerWebhookBody | undefined };

/** The parts of collector/alertmanager/alertmanager.yml the test rewrites; everything else is written back as read. */
interface AlertmanagerConfig {
  receivers: Array<{ webhook_configs?: Array<{ url: string }> }>;
  route: { group_wait?: string; group_interval?: string };
}
/** The part of collector/prometheus/prometheus.yml the test reuses: its scrape jobs. */
interface PrometheusConfig {
  scrape_configs: Array<{ job_name: string; [setting: string]: unknown }>;
}
/** The fields of Prometheus's /api/v1/alerts response that the test reads. */
interface PrometheusAlertsResponse {
  data: { alerts: Array<{ state: string; labels: Record<string, string> }> };
}

describe.skipIf(Boolean(SKIP_REASON))(
  `alert end-to-end on 127.0.0.1${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`,
  () => {
    let tmp = '';
    let receiverServer: Server | undefined;
    let webhookServer: Server | undefined;
    let provider: BasicTracerProvider | undefined;
    const receiver = new CountingReceiver(countMetricsFromCollectorConfig());
    const webhookCalls: WebhookCall[] = [];
    let promUrl = '';
    let receiverPort = 0;

    beforeAll(async () => {
      tmp = mkdtempSync(join(tmpdir(), 'tlg-alert-e2e-'));

      receiverServer = createServer((req, res) => receiver.handle(req, res));
      receiverPort = await listen(receiverServer);

      webhookServer = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          try {
            webhookCalls.push({
              path: req.url ?? '',
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as AlertmanagerWebhookBody,
            });
          } catch {
            webhookCalls.push({ path: req.url ?? '', body: undefined });
          }
          res.writeHead(200).end();
        });
      });
      const webhookPort = await listen(webhookServer);

      // Alertmanager: the real routing tree and inhibit rules; webhooks -> local server; short group waits.
      const am = YAML.parse(
        readFileSync(join(ROOT, 'collector/alertmanager/alertmanager.yml'), 'utf8'),
      ) as AlertmanagerConfig;
      for (const r of am.receivers) {
        for (const w of r.webhook_configs ?? []) w.url = `http://127.0.0.1:${webhookPort}${new URL(w.url).pathname}`;
      }
      am.route.group_wait = '1s';
      am.route.group_interval = '1s';
      mkdirSync(join(tmp, 'alertmanager-data'));
      writeFileSync(join(tmp, 'alertmanager.yml'), YAML.stringify(am));
      const amPort = await freePort();
      start('alertmanager', ALERTMANAGER!, [
        `--config.file=${join(tmp, 'alertmanager.yml')}`,
        `--storage.path=${join(tmp, 'alertmanager-data')}`,
        `--web.listen-address=127.0.0.1:${amPort}`,
        '--cluster.listen-address=',
      ]);

      // Prometheus: the real rule files (copied verbatim) and the real collector scrape job, 1s intervals.
      const real = YAML.parse(
        readFileSync(join(ROOT, 'collector/prometheus/prometheus.yml'), 'utf8'),
      ) as PrometheusConfig;
      const collectorJob = real.scrape_configs.find((j) => j.job_name === 'otel-collector');
      expect(collectorJob, 'prometheus.yml has an otel-collector scrape job').toBeTruthy();
      cpSync(join(ROOT, 'collector/prometheus/rules'), join(tmp, 'rules'), { recursive: true });
      const prom = {
        global: { scrape_interval: '1s', evaluation_interval: '1s' },
        rule_files: [join(tmp, 'rules', '*.rules.yml')],
        alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${amPort}`] }] }] },
        scrape_configs: [
          { ...collectorJob, scrape_interval: '1s', static_configs: [{ targets: [`127.0.0.1:${receiverPort}`] }] },
        ],
      };
      writeFileSync(join(tmp, 'prometheus.yml'), YAML.stringify(prom));
      const promPort = await freePort();
      promUrl = `http://127.0.0.1:${promPort}`;
      start('prometheus', PROMETHEUS!, [
        `--config.file=${join(tmp, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(tmp, 'prometheus-data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ]);

      const deadline = Date.now() + 20_000;
      for (const [name, url] of [
        ['alertmanager', `http://127.0.0.1:${amPort}/-/ready`],
        ['prometheus', `${promUrl}/-/ready`],
      ]) {
        await waitFor(`${name} ready`, deadline, async () => {
          const dead = started.find((s) => s.child.exitCode !== null);
          if (dead) throw new Error(`${dead.name} exited with ${dead.child.exitCode}`);
          return (await fetch(url)).ok ? true : undefined;
        }).catch((e: Error) => {
          throw new Error(`${e.message}\n${logsOf()}`);
        });
      }

      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      provider = new BasicTracerProvider({
        resource: resourceFromAttributes({ 'service.name': SERVICE_NAME }),
        spanProcessors: [
          await ToolLoopSpanProcessor.create({ config: DEMO_CONFIG }),
          new BatchSpanProcessor(new OTLPTraceExporter({ url: `http://127.0.0.1:${receiverPort}/v1/traces` }), {
            scheduledDelayMillis: 100,
          }),
        ],
      });
    }, 30_000);

    afterAll(async () => {
      await provider?.shutdown().catch(() => undefined);
      context.disable();
      for (const s of [...started].reverse()) await stopByPid(s);
      await Promise.all(
        [receiverServer, webhookServer].map((s) => new Promise<void>((r) => (s ? s.close(() => r()) : r()))),
      );
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    }, 20_000);

    it(
      'delivers the AgentCompactionLoopPersisted page to the webhook',
      async () => {
        const deadline = Date.now() + TEST_TIMEOUT_MS - 5_000;
        // The real demo agents, judged by the real processor, exported by the real OTLP/HTTP exporter.
        await runDemoAgents(provider!.getTracer('tool-loop-guard-e2e'), () => undefined);
        await provider!.forceFlush();

        // The stand-in counted the events the way the count connector would.
        expect(receiver.spansReceived).toBeGreaterThan(100); // every demo agent's tool spans
        const metrics = receiver.render();
        expect(metrics).toContain(
          `tool_loop_aborts_total{job="${SERVICE_NAME}",gen_ai_agent_id="${AGENT_ID}",gen_ai_tool_name="gateway",tool_loop_detector="compaction_loop_persisted",tool_loop_level="critical",error_type="compaction_loop_persisted"} 1`,
        );
        expect(metrics).toContain('tool_loop_blocks_total{');
        expect(metrics).toContain('tool_loop_warnings_total{');

        const page = await waitFor('the page at the webhook', deadline, async () =>
          webhookCalls.find(
            (c) =>
              c.path === '/page' &&
              c.body?.alerts?.some(
                (a) => a.status === 'firing' && a.labels?.alertname === 'AgentCompactionLoopPersisted',
              ),
          ),
        ).catch((e: Error) => {
          throw new Error(`${e.message}\nwebhook calls: ${JSON.stringify(webhookCalls)}\n${logsOf()}`);
        });
        expect(page.body?.receiver).toBe('pager');
        const alert = page.body?.alerts?.find((a) => a.labels?.alertname === 'AgentCompactionLoopPersisted');
        expect(alert?.labels).toMatchObject({ severity: 'page', job: SERVICE_NAME, gen_ai_agent_id: AGENT_ID });
        expect(alert?.annotations?.summary).toBe(
          `Agent ${AGENT_ID} (${SERVICE_NAME}): run aborted, compaction loop persisted`,
        );
        expect(alert?.annotations?.traceql).toBe(
          `{ event:name = "tool_loop.aborted" && event.gen_ai.agent.id = "${AGENT_ID}" }`,
        );

        // Blocked calls fire the per-agent warning rule in Prometheus too, for each demo agent that was blocked.
        const blockedAgent = 'stuck-poller';
        const firing = await waitFor('AgentToolCallsBlocked firing in Prometheus', deadline, async () => {
          const r = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as PrometheusAlertsResponse;
          return r.data.alerts.find(
            (a) =>
              a.labels.alertname === 'AgentToolCallsBlocked' &&
              a.state === 'firing' &&
              a.labels.gen_ai_agent_id === blockedAgent,
          );
        });
        expect(firing.labels).toMatchObject({ severity: 'warning', job: SERVICE_NAME, gen_ai_agent_id: blockedAgent });
      },
      TEST_TIMEOUT_MS,
    );
  },
);
