// Runs scripts/check-observability-configs.mjs on the real tree (must pass) and on broken temp copies
// (each must fail with a message naming the problem), so the checker is proven able to fail.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import * as semconv from '../../src/semconv.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/check-observability-configs.mjs');

function runChecker(root: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of the bundle (collector/ and docker-compose.yml) that a test may break. */
function copyBundle(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tlg-obs-check-'));
  tmpDirs.push(dir);
  cpSync(join(ROOT, 'collector'), join(dir, 'collector'), { recursive: true });
  cpSync(join(ROOT, 'docker-compose.yml'), join(dir, 'docker-compose.yml'));
  return dir;
}

/** Replace text in a copied file; fails loudly if the text is not there (so a test cannot pass vacuously). */
function edit(dir: string, file: string, from: string | RegExp, to: string): void {
  const p = join(dir, file);
  const before = readFileSync(p, 'utf8');
  const after = before.replace(from, to);
  expect(after, `edit of ${file} did not apply: ${String(from)}`).not.toBe(before);
  writeFileSync(p, after);
}

describe('check-observability-configs.mjs', () => {
  it('passes on the real tree', () => {
    const { status, out } = runChecker(ROOT);
    expect(out).toContain('observability configs OK');
    expect(status).toBe(0);
  });

  it('uses the same event and attribute names as src/semconv.ts', async () => {
    const { CONTRACT: contract } = (await import(pathToFileURL(SCRIPT).href)) as {
      CONTRACT: {
        events: string[];
        eventAttributes: string[];
        libraryMetric: string;
        abortErrorType: string;
      };
    };
    expect([...contract.events].sort()).toEqual(
      [
        semconv.EVENT_TOOL_LOOP_WARNING,
        semconv.EVENT_TOOL_LOOP_BLOCKED,
        semconv.EVENT_TOOL_LOOP_ABORTED,
        semconv.EVENT_TOOL_LOOP_GUARD_ARMED,
        semconv.EVENT_TOOL_LOOP_WOULD_WARN,
        semconv.EVENT_TOOL_LOOP_WOULD_BLOCK,
        semconv.EVENT_TOOL_LOOP_WOULD_ABORT,
      ].sort(),
    );
    expect(contract.eventAttributes).toEqual(
      expect.arrayContaining([
        semconv.ATTR_TOOL_LOOP_DETECTOR,
        semconv.ATTR_TOOL_LOOP_LEVEL,
        semconv.ATTR_TOOL_LOOP_ACTION,
        semconv.ATTR_TOOL_LOOP_COUNT,
        semconv.ATTR_TOOL_LOOP_MESSAGE,
        semconv.ATTR_TOOL_LOOP_RUN_ID,
        semconv.ATTR_GEN_AI_TOOL_NAME,
        semconv.ATTR_GEN_AI_AGENT_ID,
        semconv.ATTR_TOOL_LOOP_WARNING_KEY,
        semconv.ATTR_TOOL_LOOP_PAIRED_TOOL,
        semconv.ATTR_TOOL_LOOP_WINDOW_SIZE,
        semconv.ATTR_ERROR_TYPE,
      ]),
    );
    expect(contract.libraryMetric).toBe(semconv.METRIC_TOOL_LOOP_EVENTS);
    expect(contract.abortErrorType).toBe(semconv.COMPACTION_LOOP_PERSISTED);
  });

  const broken: Array<[name: string, breakIt: (dir: string) => void, expected: RegExp[]]> = [
    [
      'a misspelt exporter in a pipeline',
      (d) => edit(d, 'collector/otel-collector.yaml', 'exporters: [otlp_grpc/jaeger,', 'exporters: [otlp_grpc/jaegr,'),
      [/exporter 'otlp_grpc\/jaegr' is not declared/, /exporter 'otlp_grpc\/jaeger' is declared but not used/],
    ],
    [
      'an exporter type unknown to otelcol-contrib 0.161.0',
      (d) => edit(d, 'collector/otel-collector.yaml', /otlp_grpc\/tempo/g, 'otlpgrpc/tempo'),
      [/unknown exporter type 'otlpgrpc'/],
    ],
    [
      'an unused connector',
      (d) => edit(d, 'collector/otel-collector.yaml', 'connectors:\n', 'connectors:\n  forward/unused: {}\n'),
      [
        /connector 'forward\/unused' is not used as an exporter/,
        /connector 'forward\/unused' is not used as a receiver/,
      ],
    ],
    [
      'a connector used only as an exporter',
      (d) => edit(d, 'collector/otel-collector.yaml', '      receivers: [count]\n', '      receivers: [otlp]\n'),
      [/connector 'count' is not used as a receiver/],
    ],
    [
      'an undeclared processor',
      (d) =>
        edit(
          d,
          'collector/otel-collector.yaml',
          'processors: [memory_limiter, batch]',
          'processors: [memory_limiter, batchx]',
        ),
      [/processor 'batchx' is not declared/],
    ],
    [
      'an undeclared extension',
      (d) =>
        edit(d, 'collector/otel-collector.yaml', 'extensions: [health_check]', 'extensions: [health_check, pprof]'),
      [/service extension 'pprof' is not declared/],
    ],
    [
      'a count metric without conditions',
      (d) =>
        edit(
          d,
          'collector/otel-collector.yaml',
          '        conditions:\n          - \'spanevent.name == "tool_loop.guard_armed"\'\n',
          '',
        ),
      [/count metric 'tool_loop.guard_armed' has no conditions/, /no metric for event 'tool_loop.guard_armed'/],
    ],
    [
      'a wrong event name in a count condition',
      (d) => edit(d, 'collector/otel-collector.yaml', 'name == "tool_loop.blocked"', 'name == "tool_loop.block"'),
      [/unknown event name 'tool_loop.block'/, /no metric for event 'tool_loop.blocked'/],
    ],
    [
      'gen_ai.agent.name instead of gen_ai.agent.id',
      (d) => edit(d, 'collector/otel-collector.yaml', '- key: gen_ai.agent.id', '- key: gen_ai.agent.name'),
      [/label attribute 'gen_ai.agent.name' is not a tool-loop event attribute/, /uses 'gen_ai.agent.name'/],
    ],
    [
      'a count pipeline without delta_to_cumulative',
      (d) =>
        edit(d, 'collector/otel-collector.yaml', 'processors: [delta_to_cumulative, batch]', 'processors: [batch]'),
      [/count connector output needs delta_to_cumulative/],
    ],
    [
      'the default 5m metric_expiration',
      (d) => edit(d, 'collector/otel-collector.yaml', /metric_expiration: 24h/, 'metric_expiration: 5m'),
      [/set metric_expiration/],
    ],
    [
      'no OTLP metrics pipeline for the library counter',
      (d) =>
        edit(
          d,
          'collector/otel-collector.yaml',
          /\n {4}metrics:\n {6}receivers: \[otlp\][^\n]*\n[^\n]*\n[^\n]*\n/,
          '\n',
        ),
      [/no metrics pipeline from the otlp receiver to prometheus/],
    ],
    [
      'a duplicate YAML key',
      (d) => edit(d, 'collector/otel-collector.yaml', '  batch: {}\n', '  batch: {}\n  batch: {}\n'),
      [/otel-collector\.yaml: YAML error: .*[Mm]ap keys must be unique/],
    ],
    [
      'an exporter host that is not a compose service',
      (d) => edit(d, 'collector/otel-collector.yaml', ':-jaeger:4317}', ':-jaeger-collector:4317}'),
      [/exporter 'otlp_grpc\/jaeger' sends to 'jaeger-collector', which is not a docker-compose service/],
    ],
    [
      'a missing bind-mount source',
      (d) => unlinkSync(join(d, 'collector/tempo/tempo.yaml')),
      [/service 'tempo': bind-mount source '.\/collector\/tempo\/tempo.yaml' does not exist/],
    ],
    [
      'a depends_on on an unknown service',
      (d) =>
        edit(
          d,
          'docker-compose.yml',
          '      tempo:\n        condition: service_started\n    volumes:\n      - ./collector/otel-collector.yaml',
          '      tempo2:\n        condition: service_started\n    volumes:\n      - ./collector/otel-collector.yaml',
        ),
      [/service 'otel-collector' depends on unknown service 'tempo2'/],
    ],
    [
      'a port bound to all interfaces',
      (d) => edit(d, 'docker-compose.yml', "'127.0.0.1:16686:16686'", "'16686:16686'"),
      [/port '16686:16686' is not bound to 127.0.0.1/],
    ],
    [
      'an unpinned image',
      (d) => edit(d, 'docker-compose.yml', 'grafana/grafana:13.1.3', 'grafana/grafana:latest'),
      [/image 'grafana\/grafana:latest' is not pinned/],
    ],
    [
      'a dashboard datasource uid that is not provisioned',
      (d) => edit(d, 'collector/grafana/dashboards/tool-loops.json', /"uid": "tempo"/g, '"uid": "tempo-ds"'),
      [/datasource uid 'tempo-ds' is not provisioned/],
    ],
    [
      'a rule on a metric nobody produces',
      (d) =>
        edit(
          d,
          'collector/prometheus/rules/tool-loops.rules.yml',
          /tool_loop_blocks_total/g,
          'tool_loop_blocked_total',
        ),
      [/metric 'tool_loop_blocked_total' is produced neither by the count connector nor by the library/],
    ],
    [
      'a rule grouping by gen_ai_agent_name',
      (d) =>
        edit(
          d,
          'collector/prometheus/rules/tool-loops.rules.yml',
          'sum by (job, gen_ai_agent_id) (increase(tool_loop_warnings_total',
          'sum by (job, gen_ai_agent_name) (increase(tool_loop_warnings_total',
        ),
      [/grouping label 'gen_ai_agent_name' is not produced by the collector/],
    ],
    [
      'a page rule without the new-series branch',
      (d) =>
        edit(
          d,
          'collector/prometheus/rules/tool-loops.rules.yml',
          /\n {10}or\n {10}sum by \(job, gen_ai_agent_id\) \(\n[\s\S]*?offset 5m\n {10}\)/,
          '',
        ),
      [/lacks the 'unless ... offset' branch/],
    ],
    [
      'a TraceQL query on a wrong event name',
      (d) =>
        edit(
          d,
          'collector/grafana/dashboards/tool-loops.json',
          '"query": "{ event:name = \\"tool_loop.blocked\\" }"',
          '"query": "{ event:name = \\"tool_loop.blocks\\" }"',
        ),
      [/TraceQL event:name "tool_loop.blocks" is not a tool-loop event/],
    ],
    [
      'unit tests inside the rules glob',
      (d) =>
        renameSync(
          join(d, 'collector/prometheus/tests/tool-loops.test.yml'),
          join(d, 'collector/prometheus/rules/tool-loops.test.rules.yml'),
        ),
      [/also matches the unit-test file/, /no promtool rule unit tests/],
    ],
    [
      'a tier-2 example that counts after tail sampling',
      (d) =>
        edit(
          d,
          'collector/loadbalancer.yaml',
          '#       processors: [tail_sampling, batch]\n#       exporters: [otlp_grpc/jaeger, otlp_grpc/tempo]',
          '#       processors: [tail_sampling, batch]\n#       exporters: [otlp_grpc/jaeger, otlp_grpc/tempo, count]',
        ),
      [/count connector is fed after tail sampling/],
    ],
    [
      'an endpoint variable without a default',
      (d) =>
        edit(
          d,
          'collector/otel-collector.yaml',
          '${env:OTELCOL_PROMETHEUS_ENDPOINT:-0.0.0.0:8889}',
          '${env:OTELCOL_PROMETHEUS_ENDPOINT}',
        ),
      [/\$\{env:OTELCOL_PROMETHEUS_ENDPOINT\} has no default/],
    ],
    [
      'a static load-balancing backend without a port',
      (d) => edit(d, 'collector/loadbalancer.yaml', ':-otel-collector-2:4317}', ':-otel-collector-2}'),
      [/static backend 'otel-collector-2' is not host:port/],
    ],
    [
      'a config component the builder manifest does not build',
      (d) =>
        edit(d, 'collector/builder-config.yaml', /^ {2}- gomod: \S+\/deltatocumulativeprocessor v0\.161\.0\n/m, ''),
      [/the configs use processors type delta_to_cumulative but the manifest does not build it/],
    ],
    [
      'a manifest component no config uses',
      (d) =>
        edit(
          d,
          'collector/builder-config.yaml',
          'exporters:\n',
          'exporters:\n  - gomod: go.opentelemetry.io/collector/exporter/debugexporter v0.161.0\n',
        ),
      [/the manifest builds exporters type debug but no shipped config uses it/],
    ],
    [
      'manifest modules from two releases',
      (d) => edit(d, 'collector/builder-config.yaml', 'countconnector v0.161.0', 'countconnector v0.160.0'),
      [/collector modules span several releases \(v0\.161\.0, v0\.160\.0\)/],
    ],
    [
      'a gateway that does not route by trace id',
      (d) => edit(d, 'collector/loadbalancer.yaml', /^ {4}routing_key: traceID/m, '    routing_key: service'),
      [/routes traces by 'service', not traceID/],
    ],
  ];

  for (const [name, breakIt, expected] of broken) {
    it(`fails on ${name}`, () => {
      const dir = copyBundle();
      breakIt(dir);
      const { status, out } = runChecker(dir);
      expect(status, out).toBe(1);
      for (const re of expected) expect(out).toMatch(re);
    });
  }
});
