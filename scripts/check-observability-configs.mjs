#!/usr/bin/env node
// Structural checker for the observability bundle (collector/ + docker-compose.yml).
//
//   node scripts/check-observability-configs.mjs [root]      (root defaults to the current directory)
//
// There is no whole-config schema for otelcol-contrib and no Docker engine in CI, so this script does the
// offline part of `otelcol validate` and the cross-file checks no single tool does: YAML parse (duplicate
// keys are errors), collector pipeline wiring, component types known to otelcol-contrib 0.161.0, connector
// wiring, the builder manifest (exactly the component types the configs use, all at one release), `${env:…}`
// endpoints with defaults, the tool-loop-guard event contract (src/semconv.ts), compose services vs. the
// hosts the configs talk to, bind-mount sources, Grafana datasource uids, and every metric / label / event
// name that the alert rules and the dashboard use. Prints one line per finding and exits 1 if there is any.
//
// The authoritative check, `otelcol validate` with the collector built from collector/builder-config.yaml,
// and the live run against Jaeger, Prometheus and Alertmanager are in scripts/e2e-observability.sh.

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, posix, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';

// ── The tool-loop-guard contract (names also in src/semconv.ts, cross-checked by the tests) ──
export const CONTRACT = Object.freeze({
  events: [
    'tool_loop.warning',
    'tool_loop.blocked',
    'tool_loop.aborted',
    'tool_loop.guard_armed',
    // shadow mode (mode: 'shadow'): what the guard would have done
    'tool_loop.would_warn',
    'tool_loop.would_block',
    'tool_loop.would_abort',
  ],
  eventAttributes: [
    'tool_loop.detector',
    'tool_loop.level',
    'tool_loop.action',
    'tool_loop.count',
    'tool_loop.message',
    'tool_loop.run_id',
    'gen_ai.tool.name',
    'gen_ai.agent.id',
    'tool_loop.warning_key',
    'tool_loop.paired_tool',
    'tool_loop.window_size',
    'error.type',
  ],
  /** Attributes every count-connector metric must carry as labels. */
  requiredCountLabels: ['gen_ai.agent.id', 'gen_ai.tool.name', 'tool_loop.detector', 'tool_loop.level'],
  abortEvent: 'tool_loop.aborted',
  abortErrorType: 'compaction_loop_persisted',
  spanAttributes: [
    'tool_loop.verdict',
    'gen_ai.tool.name',
    'gen_ai.agent.id',
    'gen_ai.operation.name',
    'tool_loop.run_id',
  ],
  libraryMetric: 'tool_loop.events',
  libraryMetricAttributes: [
    'tool_loop.action',
    'tool_loop.detector',
    'tool_loop.level',
    'gen_ai.tool.name',
    'gen_ai.agent.id',
  ],
  /** Never use these: the per-agent dimension is gen_ai.agent.id. */
  forbidden: ['gen_ai.agent.name', 'gen_ai_agent_name'],
});

// ── Component types shipped in otelcol-contrib 0.161.0 (subset we accept), with deprecated aliases ──
const KNOWN_TYPES = {
  receivers: [
    'otlp',
    'prometheus',
    'hostmetrics',
    'filelog',
    'jaeger',
    'zipkin',
    'kafka',
    'docker_stats',
    'k8s_cluster',
    'kubeletstats',
  ],
  processors: [
    'batch',
    'memory_limiter',
    'delta_to_cumulative',
    'cumulativetodelta',
    'filter',
    'transform',
    'tail_sampling',
    'probabilistic_sampler',
    'resource',
    'resourcedetection',
    'attributes',
    'k8sattributes',
    'groupbytrace',
    'interval',
  ],
  exporters: [
    'otlp_grpc',
    'otlp_http',
    'debug',
    'prometheus',
    'prometheusremotewrite',
    'load_balancing',
    'file',
    'kafka',
    'nop',
  ],
  connectors: ['count', 'spanmetrics', 'servicegraph', 'forward', 'routing', 'signaltometrics', 'exceptions'],
  extensions: ['health_check', 'healthcheckv2', 'pprof', 'zpages', 'file_storage', 'basicauth', 'bearertokenauth'],
};
/** Renamed (otlp/otlphttp in v0.144.0, deltatocumulative and loadbalancing by v0.161.0); the old names still load as deprecated aliases. */
const DEPRECATED_ALIASES = {
  exporters: { otlp: 'otlp_grpc', otlphttp: 'otlp_http', loadbalancing: 'load_balancing' },
  processors: { deltatocumulative: 'delta_to_cumulative' },
};
const SIGNALS = ['traces', 'metrics', 'logs', 'profiles'];
/** Which pipeline types a connector may join: [exporter side (input), receiver side (output)]. */
const CONNECTOR_SIGNALS = {
  count: [['traces', 'metrics', 'logs', 'profiles'], ['metrics']],
  spanmetrics: [['traces'], ['metrics']],
  servicegraph: [['traces'], ['metrics']],
  exceptions: [['traces'], ['metrics', 'logs']],
  signaltometrics: [['traces', 'metrics', 'logs', 'profiles'], ['metrics']],
  forward: 'same',
  routing: 'same',
};
/** Component type of each Go module the builder manifest may list (module path's last element). */
const MODULE_TYPES = {
  otlpreceiver: 'otlp',
  memorylimiterprocessor: 'memory_limiter',
  batchprocessor: 'batch',
  deltatocumulativeprocessor: 'delta_to_cumulative',
  tailsamplingprocessor: 'tail_sampling',
  countconnector: 'count',
  forwardconnector: 'forward',
  otlpexporter: 'otlp_grpc',
  otlphttpexporter: 'otlp_http',
  prometheusexporter: 'prometheus',
  loadbalancingexporter: 'load_balancing',
  debugexporter: 'debug',
  healthcheckextension: 'health_check',
};
const CONTRIB_MODULE = 'github.com/open-telemetry/opentelemetry-collector-contrib/';
const CORE_MODULE = 'go.opentelemetry.io/collector/';
/** `${env:NAME}` or `${env:NAME:-default}`, the collector's environment-variable syntax. */
const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const COLLECTOR_TOP_LEVEL = ['receivers', 'processors', 'exporters', 'connectors', 'extensions', 'service'];
const REQUIRED_SERVICES = ['otel-collector', 'jaeger', 'tempo', 'prometheus', 'alertmanager', 'grafana'];

const typeOf = (id) => String(id).split('/')[0];
/** A component id's type, deprecated aliases mapped to the current name. */
const canonicalType = (kind, id) => DEPRECATED_ALIASES[kind]?.[typeOf(id)] ?? typeOf(id);
const promName = (otelName) => otelName.replace(/[^A-Za-z0-9_]/g, '_');
const durationSeconds = (d) => {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(String(d ?? '').trim());
  if (!m) return NaN;
  return Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }[m[2]];
};
const hostOf = (endpoint) => {
  const s = String(endpoint ?? '')
    .replace(/^[a-z]+:\/\//, '')
    .split('/')[0];
  const i = s.lastIndexOf(':');
  return { host: i >= 0 ? s.slice(0, i) : s, port: i >= 0 ? s.slice(i + 1) : '' };
};
/** Deep copy of a collector config with every `${env:NAME:-default}` replaced by its default. */
const withEnvDefaults = (node) => {
  if (typeof node === 'string') return node.replace(ENV_REF, (_, _name, def) => def ?? '');
  if (Array.isArray(node)) return node.map(withEnvDefaults);
  if (node && typeof node === 'object')
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withEnvDefaults(v)]));
  return node;
};
const isLocal = (h) => ['localhost', '127.0.0.1', '0.0.0.0', '[::]', ''].includes(h);

export function checkObservabilityConfigs(rootArg = process.cwd()) {
  const root = resolve(rootArg);
  const findings = [];
  const notes = [];
  let checks = 0;
  const fail = (file, msg) => findings.push(`${file}: ${msg}`);
  const ok = (cond, file, msg) => {
    checks++;
    if (!cond) fail(file, msg);
    return Boolean(cond);
  };

  // ── loading ──
  const texts = new Map();
  function readText(file) {
    const p = join(root, file);
    if (!existsSync(p) || !statSync(p).isFile()) {
      fail(file, 'file is missing');
      return undefined;
    }
    const t = readFileSync(p, 'utf8');
    texts.set(file, t);
    return t;
  }
  function parseYaml(label, text) {
    const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: true });
    checks++;
    if (doc.errors.length) {
      for (const e of doc.errors) fail(label, `YAML error: ${e.message.split('\n')[0]}`);
      return undefined;
    }
    return doc.toJS() ?? {};
  }
  const loadYaml = (file) => {
    const t = readText(file);
    return t === undefined ? undefined : parseYaml(file, t);
  };
  const listDir = (dir, re) => {
    const p = join(root, dir);
    return existsSync(p)
      ? readdirSync(p)
          .filter((f) => re.test(f))
          .sort()
          .map((f) => posix.join(dir, f))
      : [];
  };

  const F = {
    collector: 'collector/otel-collector.yaml',
    lb: 'collector/loadbalancer.yaml',
    prom: 'collector/prometheus/prometheus.yml',
    am: 'collector/alertmanager/alertmanager.yml',
    ds: 'collector/grafana/provisioning/datasources/datasources.yaml',
    dp: 'collector/grafana/provisioning/dashboards/dashboards.yaml',
    tempo: 'collector/tempo/tempo.yaml',
    compose: 'docker-compose.yml',
    manifest: 'collector/builder-config.yaml',
  };
  /** Env references must carry a default, so the shipped file also runs with no variable set. */
  const checkEnvDefaults = (file, text) => {
    for (const m of text.matchAll(ENV_REF))
      ok(m[2] !== undefined, file, `\${env:${m[1]}} has no default (write \${env:${m[1]}:-<default>})`);
  };
  const colText = readText(F.collector);
  const colRaw = colText === undefined ? undefined : parseYaml(F.collector, colText);
  const col = colRaw && withEnvDefaults(colRaw);
  const lbText = readText(F.lb);
  const lbRaw = lbText === undefined ? undefined : parseYaml(F.lb, lbText);
  const lb = lbRaw && withEnvDefaults(lbRaw);
  if (colText !== undefined) checkEnvDefaults(F.collector, colText);
  if (lbText !== undefined)
    checkEnvDefaults(F.lb, lbText.replace(/^# BEGIN tier-2 example\n[\s\S]*?^# END tier-2 example$/m, ''));
  const manifest = loadYaml(F.manifest);
  const prom = loadYaml(F.prom);
  const am = loadYaml(F.am);
  const ds = loadYaml(F.ds);
  const dp = loadYaml(F.dp);
  const tempo = loadYaml(F.tempo);
  const dc = loadYaml(F.compose);
  const ruleFiles = listDir('collector/prometheus/rules', /\.ya?ml$/);
  const testFiles = listDir('collector/prometheus/tests', /\.ya?ml$/);
  const dashFiles = listDir('collector/grafana/dashboards', /\.json$/);
  ok(ruleFiles.length > 0, 'collector/prometheus/rules', 'no rule files');
  ok(testFiles.length > 0, 'collector/prometheus/tests', 'no promtool rule unit tests');
  ok(dashFiles.length > 0, 'collector/grafana/dashboards', 'no dashboard JSON');
  const rules = new Map(ruleFiles.map((f) => [f, loadYaml(f)]));
  const tests = new Map(testFiles.map((f) => [f, loadYaml(f)]));
  const dashboards = new Map();
  for (const f of dashFiles) {
    const t = readText(f);
    if (t === undefined) continue;
    try {
      dashboards.set(f, JSON.parse(t));
      checks++;
    } catch (e) {
      fail(f, `invalid JSON: ${e.message}`);
    }
  }

  // ── docker-compose.yml ──
  const services = dc?.services ?? {};
  const serviceNames = Object.keys(services);
  const mountsOf = (svc) =>
    (services[svc]?.volumes ?? []).map((v) => {
      if (typeof v === 'object')
        return { source: String(v.source ?? ''), target: String(v.target ?? ''), type: v.type };
      const [source, target] = String(v).split(':');
      return { source, target, type: /^[./~]/.test(source) ? 'bind' : 'volume' };
    });
  /** Host path (relative to root) that a container path of `svc` maps to via a bind mount, if any. */
  function hostPathFor(svc, containerPath) {
    for (const m of mountsOf(svc)) {
      if (m.type !== 'bind') continue;
      if (containerPath === m.target) return posix.normalize(m.source);
      if (containerPath.startsWith(m.target.replace(/\/?$/, '/')))
        return posix.join(m.source, containerPath.slice(m.target.replace(/\/?$/, '/').length));
    }
    return undefined;
  }
  if (dc) {
    ok(dc.services && typeof dc.services === 'object', F.compose, 'no services');
    for (const s of REQUIRED_SERVICES) ok(serviceNames.includes(s), F.compose, `service '${s}' is missing`);
    const namedVolumes = Object.keys(dc.volumes ?? {});
    for (const [svc, s] of Object.entries(services)) {
      const image = String(s.image ?? '');
      const tag = image.includes(':') ? image.slice(image.lastIndexOf(':') + 1) : '';
      ok(
        tag && !/^(latest|stable|main|edge)$/.test(tag),
        F.compose,
        `service '${svc}': image '${image}' is not pinned to a version`,
      );
      for (const p of s.ports ?? []) {
        const spec = typeof p === 'object' ? `${p.host_ip ?? ''}:${p.published}:${p.target}` : String(p);
        ok(spec.startsWith('127.0.0.1:'), F.compose, `service '${svc}': port '${spec}' is not bound to 127.0.0.1`);
      }
      for (const m of mountsOf(svc)) {
        if (m.type === 'bind') {
          ok(
            existsSync(join(root, m.source)),
            F.compose,
            `service '${svc}': bind-mount source '${m.source}' does not exist`,
          );
        } else {
          ok(
            namedVolumes.includes(m.source),
            F.compose,
            `service '${svc}': named volume '${m.source}' is not declared under top-level volumes`,
          );
        }
      }
      const deps = Array.isArray(s.depends_on)
        ? Object.fromEntries(s.depends_on.map((d) => [d, {}]))
        : (s.depends_on ?? {});
      for (const [d, cond] of Object.entries(deps)) {
        if (!ok(serviceNames.includes(d), F.compose, `service '${svc}' depends on unknown service '${d}'`)) continue;
        if (cond?.condition === 'service_healthy')
          ok(
            services[d].healthcheck,
            F.compose,
            `service '${svc}' waits for '${d}' to be healthy but '${d}' has no healthcheck`,
          );
      }
      // A config path given on the command line must be mounted into the container.
      const cmd = Array.isArray(s.command) ? s.command.map(String) : String(s.command ?? '').split(/\s+/);
      for (const arg of cmd) {
        const m = /^-{1,2}(?:config|config\.file)=(\/.+)$/.exec(arg);
        if (m)
          ok(
            hostPathFor(svc, m[1]) !== undefined,
            F.compose,
            `service '${svc}': config '${m[1]}' is not provided by any bind mount`,
          );
      }
    }
  }
  const knownHost = (h) => isLocal(h) || serviceNames.includes(h);

  // ── collector configs ──
  function checkCollector(label, c, opts = {}) {
    if (!c || typeof c !== 'object') return;
    for (const k of Object.keys(c)) ok(COLLECTOR_TOP_LEVEL.includes(k), label, `unknown top-level section '${k}'`);
    for (const kind of Object.keys(KNOWN_TYPES)) {
      for (const id of Object.keys(c[kind] ?? {})) {
        const t = typeOf(id);
        const alias = DEPRECATED_ALIASES[kind]?.[t];
        if (alias) notes.push(`${label}: ${kind} '${id}' uses the deprecated type '${t}' (now '${alias}')`);
        ok(
          KNOWN_TYPES[kind].includes(t) || alias,
          label,
          `unknown ${kind.slice(0, -1)} type '${t}' in '${id}' (not in otelcol-contrib 0.161.0)`,
        );
      }
    }
    const connectors = Object.keys(c.connectors ?? {});
    const pipelines = c.service?.pipelines ?? {};
    ok(Object.keys(pipelines).length > 0, label, 'service.pipelines is empty');
    const used = { receivers: new Set(), processors: new Set(), exporters: new Set() };
    const connectorIn = new Map();
    const connectorOut = new Map();
    for (const [pname, p] of Object.entries(pipelines)) {
      const signal = typeOf(pname);
      ok(SIGNALS.includes(signal), label, `pipeline '${pname}': unknown signal '${signal}'`);
      ok((p?.receivers ?? []).length > 0, label, `pipeline '${pname}' has no receivers`);
      ok((p?.exporters ?? []).length > 0, label, `pipeline '${pname}' has no exporters`);
      for (const r of p?.receivers ?? []) {
        if (connectors.includes(r)) {
          connectorOut.set(r, [...(connectorOut.get(r) ?? []), signal]);
          continue;
        }
        used.receivers.add(r);
        ok(
          r in (c.receivers ?? {}),
          label,
          `pipeline '${pname}': receiver '${r}' is not declared under receivers or connectors`,
        );
      }
      for (const x of p?.processors ?? []) {
        used.processors.add(x);
        ok(x in (c.processors ?? {}), label, `pipeline '${pname}': processor '${x}' is not declared under processors`);
      }
      ok(
        new Set(p?.processors ?? []).size === (p?.processors ?? []).length,
        label,
        `pipeline '${pname}' lists a processor twice`,
      );
      if ((p?.processors ?? []).includes('memory_limiter'))
        ok(
          p.processors[0] === 'memory_limiter',
          label,
          `pipeline '${pname}': memory_limiter must be the first processor`,
        );
      for (const e of p?.exporters ?? []) {
        if (connectors.includes(e)) {
          connectorIn.set(e, [...(connectorIn.get(e) ?? []), signal]);
          continue;
        }
        used.exporters.add(e);
        ok(
          e in (c.exporters ?? {}),
          label,
          `pipeline '${pname}': exporter '${e}' is not declared under exporters or connectors`,
        );
      }
    }
    for (const kind of ['receivers', 'processors', 'exporters']) {
      for (const id of Object.keys(c[kind] ?? {}))
        ok(used[kind].has(id), label, `${kind.slice(0, -1)} '${id}' is declared but not used in any pipeline`);
    }
    for (const k of connectors) {
      const ins = connectorIn.get(k) ?? [];
      const outs = connectorOut.get(k) ?? [];
      ok(ins.length > 0, label, `connector '${k}' is not used as an exporter in any pipeline`);
      ok(outs.length > 0, label, `connector '${k}' is not used as a receiver in any pipeline`);
      const rule = CONNECTOR_SIGNALS[typeOf(k)];
      if (rule === 'same') {
        for (const i of ins)
          for (const o of outs)
            ok(i === o, label, `connector '${k}' links a ${i} pipeline to a ${o} pipeline (must be the same signal)`);
      } else if (rule) {
        for (const i of ins) ok(rule[0].includes(i), label, `connector '${k}' cannot consume ${i}`);
        for (const o of outs) ok(rule[1].includes(o), label, `connector '${k}' cannot emit ${o}`);
      }
    }
    const declaredExt = Object.keys(c.extensions ?? {});
    for (const x of c.service?.extensions ?? [])
      ok(declaredExt.includes(x), label, `service extension '${x}' is not declared under extensions`);
    for (const x of declaredExt)
      ok(
        (c.service?.extensions ?? []).includes(x),
        label,
        `extension '${x}' is declared but not enabled in service.extensions`,
      );

    // count connector: conditions, event names, labels
    const eventNames = new Set();
    for (const [cid, cc] of Object.entries(c.connectors ?? {})) {
      if (typeOf(cid) !== 'count') continue;
      for (const section of ['spans', 'spanevents', 'metrics', 'datapoints', 'logs', 'profiles']) {
        for (const [metric, def] of Object.entries(cc?.[section] ?? {})) {
          const conds = def?.conditions ?? [];
          ok(
            conds.length > 0,
            label,
            `count metric '${metric}' has no conditions (it would count every ${section.replace(/s$/, '')})`,
          );
          if (section !== 'spanevents') continue;
          for (const cond of conds) {
            const m = /^\s*(?:spanevent\.)?name\s*==\s*"([^"]+)"\s*$/.exec(cond);
            if (
              ok(
                m,
                label,
                `count metric '${metric}': condition '${cond}' is not of the form spanevent.name == "<event name>"`,
              )
            )
              eventNames.add(m[1]);
          }
          const keys = (def?.attributes ?? []).map((a) => a?.key);
          for (const k of keys)
            ok(
              CONTRACT.eventAttributes.includes(k),
              label,
              `count metric '${metric}': label attribute '${k}' is not a tool-loop event attribute`,
            );
          for (const k of CONTRACT.requiredCountLabels)
            ok(keys.includes(k), label, `count metric '${metric}': missing label attribute '${k}'`);
          if (conds.some((x) => x.includes(`"${CONTRACT.abortEvent}"`)))
            ok(keys.includes('error.type'), label, `count metric '${metric}': abort counter must carry error.type`);
        }
      }
    }
    for (const n of eventNames)
      ok(
        CONTRACT.events.includes(n),
        label,
        `count connector counts unknown event name '${n}' (events are ${CONTRACT.events.join(', ')})`,
      );
    if (opts.main) {
      for (const n of CONTRACT.events) ok(eventNames.has(n), label, `count connector has no metric for event '${n}'`);
    }

    // metrics pipelines fed by count need delta_to_cumulative before a prometheus exporter
    for (const [pname, p] of Object.entries(pipelines)) {
      const fromCount = (p?.receivers ?? []).some((r) => typeOf(r) === 'count');
      const toProm = (p?.exporters ?? []).some((e) => typeOf(e) === 'prometheus');
      if (fromCount && toProm)
        ok(
          (p.processors ?? []).some((x) => canonicalType('processors', x) === 'delta_to_cumulative'),
          label,
          `pipeline '${pname}': count connector output needs delta_to_cumulative before the prometheus exporter`,
        );
    }
    for (const [id, x] of Object.entries(c.processors ?? {})) {
      if (canonicalType('processors', id) === 'delta_to_cumulative')
        ok(
          durationSeconds(x?.max_stale) >= 3600,
          label,
          `processor '${id}': set max_stale (>= 1h, e.g. 24h); the 5m default resets rare counters`,
        );
    }
    for (const [id, x] of Object.entries(c.exporters ?? {})) {
      const t = canonicalType('exporters', id);
      if (t === 'prometheus')
        ok(
          durationSeconds(x?.metric_expiration) >= 3600,
          label,
          `exporter '${id}': set metric_expiration (>= 1h, e.g. 24h); the 5m default drops rare series`,
        );
      if (['otlp_grpc', 'otlp', 'otlp_http', 'otlphttp'].includes(t)) {
        const { host } = hostOf(x?.endpoint);
        ok(host, label, `exporter '${id}' has no endpoint`);
        if (opts.composeHosts && host)
          ok(knownHost(host), label, `exporter '${id}' sends to '${host}', which is not a docker-compose service`);
      }
      if (t === 'load_balancing') {
        const h = x?.resolver?.dns?.hostname;
        for (const s of x?.resolver?.static?.hostnames ?? [])
          ok(
            hostOf(s).host && /^\d+$/.test(hostOf(s).port),
            label,
            `exporter '${id}': static backend '${s}' is not host:port`,
          );
        ok(
          x?.resolver && (x.resolver.dns || x.resolver.static || x.resolver.k8s || x.resolver.aws_cloud_map),
          label,
          `exporter '${id}' has no resolver`,
        );
        ok(
          !x?.protocol?.otlp?.endpoint,
          label,
          `exporter '${id}': protocol.otlp must not set an endpoint (the resolver provides it)`,
        );
        if (h && opts.composeHosts)
          ok(knownHost(h), label, `exporter '${id}' resolves '${h}', which is not a docker-compose service`);
      }
    }
    return { eventNames, pipelines };
  }

  let countMetrics = [];
  const usedConfigs = [col, lb].filter(Boolean);
  if (col) {
    checkCollector(F.collector, col, { main: true, composeHosts: true });
    const pipes = Object.entries(col.service?.pipelines ?? {});
    ok(
      pipes.some(([n, p]) => typeOf(n) === 'traces' && (p.exporters ?? []).some((e) => typeOf(e) === 'count')),
      F.collector,
      'no traces pipeline exports to the count connector',
    );
    ok(
      pipes.some(
        ([n, p]) =>
          typeOf(n) === 'metrics' &&
          (p.receivers ?? []).includes('otlp') &&
          (p.exporters ?? []).some((e) => typeOf(e) === 'prometheus'),
      ),
      F.collector,
      `no metrics pipeline from the otlp receiver to prometheus (the library's ${CONTRACT.libraryMetric} counter would not be scrapeable)`,
    );
    const traceExporters = pipes
      .filter(([n]) => typeOf(n) === 'traces')
      .flatMap(([, p]) => p.exporters ?? [])
      .map((e) => String(col.exporters?.[e]?.endpoint ?? ''));
    for (const backend of ['jaeger', 'tempo'])
      ok(
        traceExporters.some((e) => hostOf(e).host === backend),
        F.collector,
        `traces are not exported to ${backend}`,
      );
    for (const [cid, cc] of Object.entries(col.connectors ?? {})) {
      if (typeOf(cid) === 'count') countMetrics.push(...Object.keys(cc?.spanevents ?? {}));
    }
  }
  if (lb) {
    checkCollector(F.lb, lb, { composeHosts: true });
    const lbx = Object.entries(lb.exporters ?? {}).filter(
      ([id]) => canonicalType('exporters', id) === 'load_balancing',
    );
    ok(lbx.length > 0, F.lb, 'no loadbalancing exporter');
    const tracesLb = Object.entries(lb.service?.pipelines ?? {})
      .filter(([n]) => typeOf(n) === 'traces')
      .flatMap(([, p]) => p.exporters ?? [])
      .filter((e) => canonicalType('exporters', e) === 'load_balancing');
    for (const e of tracesLb)
      ok(
        (lb.exporters[e]?.routing_key ?? 'traceID') === 'traceID',
        F.lb,
        `exporter '${e}' routes traces by '${lb.exporters[e]?.routing_key}', not traceID`,
      );
    ok(tracesLb.length > 0, F.lb, 'traces are not routed through a loadbalancing exporter');
    // The tier-2 tail-sampling example is a comment block; keep it valid too.
    const exText = tier2Example(lbText);
    if (ok(exText !== undefined, F.lb, 'tier-2 tail-sampling example (# BEGIN/END tier-2 example) is missing')) {
      const label = `${F.lb} (tier-2 example)`;
      const ex = parseYaml(label, exText);
      if (ex) {
        usedConfigs.push(ex);
        checkCollector(label, ex, { composeHosts: true });
        const ts = Object.entries(ex.processors ?? {}).find(([id]) => typeOf(id) === 'tail_sampling');
        if (ok(ts, label, 'no tail_sampling processor')) {
          const keepsLoops = (ts[1]?.policies ?? []).some((p) =>
            (p?.ottl_condition?.spanevent ?? []).some((s) => s.includes('tool_loop')),
          );
          ok(keepsLoops, label, 'tail_sampling has no policy that keeps traces with tool_loop span events');
          const pipes = Object.entries(ex.service?.pipelines ?? {});
          const sampled = pipes.filter(([, p]) => (p.processors ?? []).includes(ts[0]));
          ok(
            !sampled.some(([, p]) => (p.exporters ?? []).some((e) => typeOf(e) === 'count')),
            label,
            'count connector is fed after tail sampling (counts would be distorted)',
          );
        }
      }
    }
  }

  // ── builder manifest: exactly the component types the configs use, every module at one release ──
  if (manifest) {
    const kinds = ['receivers', 'processors', 'exporters', 'connectors', 'extensions'];
    const used = new Set(
      usedConfigs.flatMap((c) =>
        kinds.flatMap((k) => Object.keys(c[k] ?? {}).map((id) => `${k} ${canonicalType(k, id)}`)),
      ),
    );
    const built = new Set();
    const releases = { contrib: new Set(), core: new Set() };
    for (const kind of [...kinds, 'providers']) {
      for (const entry of manifest[kind] ?? []) {
        const [path, version] = String(entry?.gomod ?? '').split(/\s+/);
        ok(path && version, F.manifest, `${kind}: '${entry?.gomod}' is not '<module> <version>'`);
        if (path.startsWith(CONTRIB_MODULE)) releases.contrib.add(version);
        else if (path.startsWith(CORE_MODULE) && /^v0\./.test(version)) releases.core.add(version);
        if (kind === 'providers') continue;
        const t = MODULE_TYPES[path.split('/').pop()];
        if (ok(t, F.manifest, `${kind}: no known component type for module '${path}'`)) built.add(`${kind} ${t}`);
      }
    }
    for (const u of used)
      ok(built.has(u), F.manifest, `the configs use ${u.replace(' ', ' type ')} but the manifest does not build it`);
    for (const b of built)
      ok(used.has(b), F.manifest, `the manifest builds ${b.replace(' ', ' type ')} but no shipped config uses it`);
    const all = [...releases.contrib, ...releases.core];
    ok(
      new Set(all).size === 1,
      F.manifest,
      `collector modules span several releases (${[...new Set(all)].join(', ')}); keep them at one`,
    );
    ok(
      String(manifest.dist?.version ?? '') === String(all[0] ?? '').replace(/^v/, ''),
      F.manifest,
      `dist.version '${manifest.dist?.version}' differs from the module release ${all[0]}`,
    );
  }

  // ── Prometheus config, rules, tests ──
  if (prom) {
    const rf = prom.rule_files ?? [];
    ok(rf.length > 0, F.prom, 'no rule_files');
    for (const pattern of rf) {
      const hostPattern = hostPathFor('prometheus', String(pattern));
      if (!ok(hostPattern, F.prom, `rule_files '${pattern}' is not inside a bind mount of the prometheus service`))
        continue;
      const re = new RegExp(
        `^${basename(hostPattern)
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '[^/]*')
          .replace(/\?/g, '[^/]')}$`,
      );
      const matched = listDir(dirname(hostPattern), re);
      ok(matched.length > 0, F.prom, `rule_files '${pattern}' matches no file in ${dirname(hostPattern)}`);
      for (const f of matched)
        ok(
          !(rules.get(f) ?? loadYaml(f))?.tests,
          F.prom,
          `rule_files '${pattern}' also matches the unit-test file ${f}`,
        );
    }
    for (const a of prom.alerting?.alertmanagers ?? []) {
      for (const sc of a.static_configs ?? [])
        for (const t of sc.targets ?? [])
          ok(knownHost(hostOf(t).host), F.prom, `alertmanager target '${t}' is not a docker-compose service`);
    }
    const colPromPort = hostOf(
      Object.entries(col?.exporters ?? {}).find(([id]) => typeOf(id) === 'prometheus')?.[1]?.endpoint,
    ).port;
    let scrapesCollector = false;
    for (const job of prom.scrape_configs ?? []) {
      for (const sc of job.static_configs ?? []) {
        for (const t of sc.targets ?? []) {
          const { host, port } = hostOf(t);
          ok(knownHost(host), F.prom, `job '${job.job_name}': target '${t}' is not a docker-compose service`);
          if (host === 'otel-collector' && port === colPromPort) {
            scrapesCollector = true;
            ok(
              job.honor_labels === true,
              F.prom,
              `job '${job.job_name}' must set honor_labels: true (keeps job/instance from service.name/service.instance.id)`,
            );
          }
        }
      }
    }
    ok(
      scrapesCollector,
      F.prom,
      `no scrape job for the collector's prometheus exporter (otel-collector:${colPromPort || '?'})`,
    );
  }
  for (const f of testFiles) {
    const t = tests.get(f);
    if (!t) continue;
    ok(Array.isArray(t.tests) && t.tests.length > 0, f, 'no tests');
    for (const r of t.rule_files ?? []) ok(existsSync(join(root, dirname(f), r)), f, `rule file '${r}' does not exist`);
  }
  ok(
    !ruleFiles.some((f) => rules.get(f)?.tests),
    'collector/prometheus/rules',
    'a unit-test file sits in the rules directory',
  );

  // ── Alertmanager ──
  if (am) {
    const receivers = (am.receivers ?? []).map((r) => r.name);
    const walk = (route, path) => {
      if (!route) return;
      if (route.receiver)
        ok(receivers.includes(route.receiver), F.am, `${path}: receiver '${route.receiver}' is not defined`);
      (route.routes ?? []).forEach((r, i) => walk(r, `${path}.routes[${i}]`));
    };
    walk(am.route, 'route');
    const routesText = JSON.stringify(am.route ?? {});
    ok(/severity\s*=\s*\\?"page/.test(routesText), F.am, 'no route for severity="page"');
  }

  // ── Tempo ──
  if (tempo) {
    const grpc = tempo.distributor?.receivers?.otlp?.protocols?.grpc?.endpoint;
    const tempoExporter = Object.values(col?.exporters ?? {}).find((x) => hostOf(x?.endpoint).host === 'tempo');
    ok(grpc, F.tempo, 'distributor has no OTLP gRPC receiver');
    if (grpc && tempoExporter)
      ok(
        hostOf(grpc).port === hostOf(tempoExporter.endpoint).port,
        F.tempo,
        `OTLP gRPC port ${hostOf(grpc).port} differs from the collector's tempo exporter (${tempoExporter.endpoint})`,
      );
    for (const rw of tempo.metrics_generator?.storage?.remote_write ?? [])
      ok(knownHost(hostOf(rw.url).host), F.tempo, `remote_write '${rw.url}' is not a docker-compose service`);
    if ((tempo.metrics_generator?.storage?.remote_write ?? []).length) {
      ok(
        (services.prometheus?.command ?? []).includes('--web.enable-remote-write-receiver'),
        F.compose,
        'tempo remote-writes span metrics but prometheus lacks --web.enable-remote-write-receiver',
      );
    }
  }

  // ── Grafana ──
  const dsByUid = new Map();
  if (ds) {
    for (const d of ds.datasources ?? []) {
      ok(d.uid, F.ds, `datasource '${d.name}' has no uid (dashboards reference uids)`);
      dsByUid.set(d.uid, d);
      ok(knownHost(hostOf(d.url).host), F.ds, `datasource '${d.name}': '${d.url}' is not a docker-compose service`);
    }
    for (const t of ['prometheus', 'tempo', 'jaeger', 'alertmanager'])
      ok(
        [...dsByUid.values()].some((d) => d.type === t),
        F.ds,
        `no ${t} datasource`,
      );
  }
  if (dp) {
    for (const p of dp.providers ?? []) {
      const hostDir = hostPathFor('grafana', String(p.options?.path ?? ''));
      if (
        ok(hostDir, F.dp, `provider '${p.name}': path '${p.options?.path}' is not a bind mount of the grafana service`)
      ) {
        ok(listDir(hostDir, /\.json$/).length > 0, F.dp, `provider '${p.name}': no dashboard JSON in ${hostDir}`);
      }
    }
  }
  const provisioningDir = hostPathFor('grafana', '/etc/grafana/provisioning');
  if (dc)
    ok(
      provisioningDir === 'collector/grafana/provisioning',
      F.compose,
      'grafana does not mount collector/grafana/provisioning at /etc/grafana/provisioning',
    );
  for (const [f, d] of dashboards) {
    ok(d.uid, f, 'dashboard has no uid');
    const refs = [];
    const collect = (node, where) => {
      if (
        node.datasource &&
        typeof node.datasource === 'object' &&
        node.datasource.uid &&
        !String(node.datasource.uid).startsWith('-- ')
      )
        refs.push([node.datasource, where]);
    };
    walkObjects(d.panels ?? [], 'panels', collect);
    walkObjects(d.templating ?? {}, 'templating', collect);
    for (const [ref, where] of refs) {
      const target = dsByUid.get(ref.uid);
      if (ok(target, f, `${where}: datasource uid '${ref.uid}' is not provisioned in ${F.ds}`) && ref.type) {
        ok(
          target.type === ref.type,
          f,
          `${where}: datasource uid '${ref.uid}' is a ${target.type} datasource, not ${ref.type}`,
        );
      }
    }
  }

  // ── names used by rules and dashboards ──
  const producedMetrics = new Set([
    ...countMetrics.map((m) => `${promName(m)}_total`),
    `${promName(CONTRACT.libraryMetric)}_total`,
  ]);
  const producedLabels = new Set([
    'job',
    'instance',
    'alertname',
    'alertstate',
    'severity',
    '__name__',
    ...CONTRACT.libraryMetricAttributes.map(promName),
    ...Object.values(col?.connectors ?? {}).flatMap((cc) =>
      Object.values(cc?.spanevents ?? {}).flatMap((d) => (d?.attributes ?? []).map((a) => promName(String(a?.key)))),
    ),
  ]);
  const queryTexts = [];
  for (const f of ruleFiles) {
    for (const g of rules.get(f)?.groups ?? []) {
      for (const r of g.rules ?? []) {
        queryTexts.push([f, `${r.alert ?? r.record}`, String(r.expr ?? '')]);
        for (const v of Object.values(r.annotations ?? {}))
          queryTexts.push([f, `${r.alert ?? r.record} annotation`, String(v)]);
      }
    }
  }
  for (const [f, d] of dashboards) {
    walkObjects(d, 'dashboard', (node, where) => {
      for (const k of ['expr', 'query', 'definition', 'url']) {
        if (typeof node[k] === 'string')
          queryTexts.push([
            f,
            `${where}.${k}`,
            k === 'url' ? decodeURIComponent(node[k].replace(/\$\{[^}]*\}/g, 'X')).replace(/\\"/g, '"') : node[k],
          ]);
        if (node[k] && typeof node[k] === 'object' && typeof node[k].query === 'string')
          queryTexts.push([f, `${where}.${k}.query`, node[k].query]);
      }
    });
  }
  let metricRefs = 0;
  for (const [f, where, text] of queryTexts) {
    for (const m of text.matchAll(/\btool_loop_[a-z0-9_]+_total\b/g)) {
      metricRefs++;
      ok(
        producedMetrics.has(m[0]),
        f,
        `${where}: metric '${m[0]}' is produced neither by the count connector nor by the library (${[...producedMetrics].join(', ')})`,
      );
    }
    // label matchers and by/without clauses in PromQL
    for (const m of text.matchAll(/\b([a-z_][a-z0-9_]*)\s*(?:=~|!~|!=|=(?!=))\s*"/g)) {
      if (/^(gen_ai|tool_loop|error)_/.test(m[1]))
        ok(producedLabels.has(m[1]), f, `${where}: label '${m[1]}' is not produced by the collector`);
    }
    for (const m of text.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) {
      for (const l of m[1]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean))
        ok(producedLabels.has(l), f, `${where}: grouping label '${l}' is not produced by the collector`);
    }
    for (const m of text.matchAll(/\$labels\.([a-z_][a-z0-9_]*)/g))
      ok(producedLabels.has(m[1]), f, `${where}: template label '${m[1]}' is not produced by the collector`);
    // TraceQL: event names and event attributes
    for (const m of text.matchAll(/event:name\s*(=~|=|!=)\s*"([^"]+)"/g)) {
      if (m[1] === '=~')
        ok(
          CONTRACT.events.some((e) => new RegExp(`^(?:${m[2]})$`).test(e)),
          f,
          `${where}: TraceQL event:name =~ "${m[2]}" matches none of the tool-loop events`,
        );
      else ok(CONTRACT.events.includes(m[2]), f, `${where}: TraceQL event:name "${m[2]}" is not a tool-loop event`);
    }
    for (const m of text.matchAll(/\bevent\.([a-z_][a-z0-9_.]*[a-z0-9_])\s*(?:=|!=|=~|!~|>|<)/g))
      ok(
        CONTRACT.eventAttributes.includes(m[1]),
        f,
        `${where}: TraceQL event attribute '${m[1]}' is not a tool-loop event attribute`,
      );
    for (const m of text.matchAll(/\bspan\.([a-z_][a-z0-9_.]*[a-z0-9_])\s*(?:=|!=|=~|!~|>|<)/g))
      ok(
        CONTRACT.spanAttributes.includes(m[1]),
        f,
        `${where}: TraceQL span attribute '${m[1]}' is not one the tool spans carry`,
      );
  }
  ok(metricRefs > 0, 'collector/', 'the alert rules and dashboards reference no tool_loop_*_total metric');
  const pageRule = ruleFiles
    .flatMap((f) => (rules.get(f)?.groups ?? []).flatMap((g) => g.rules ?? []))
    .find((r) => r.labels?.severity === 'page');
  if (ok(pageRule, 'collector/prometheus/rules', 'no alert with severity: page')) {
    ok(
      String(pageRule.expr).includes(CONTRACT.abortErrorType),
      'collector/prometheus/rules',
      `page alert '${pageRule.alert}' does not select ${CONTRACT.abortErrorType}`,
    );
    ok(
      /\bunless\b[\s\S]*\boffset\b/.test(String(pageRule.expr)),
      'collector/prometheus/rules',
      `page alert '${pageRule.alert}' lacks the 'unless ... offset' branch (a brand-new series would never page)`,
    );
  }

  // ── forbidden names anywhere in the bundle ──
  for (const [f, t] of texts)
    for (const bad of CONTRACT.forbidden)
      ok(!t.includes(bad), f, `uses '${bad}'; the per-agent dimension is gen_ai.agent.id (gen_ai_agent_id)`);

  return { findings, notes, checks };
}

/** The tier-2 example of loadbalancer.yaml (a comment block between BEGIN/END markers) as YAML text. */
export function tier2Example(lbText) {
  const m = /^# BEGIN tier-2 example\n([\s\S]*?)^# END tier-2 example$/m.exec(lbText);
  return m
    ? m[1]
        .split('\n')
        .map((l) => l.replace(/^# ?/, ''))
        .join('\n')
    : undefined;
}

function main() {
  const root = process.argv[2] ?? process.cwd();
  const { findings, notes, checks } = checkObservabilityConfigs(root);
  for (const n of notes) console.log(`note: ${n}`);
  if (findings.length) {
    for (const f of findings) console.error(`FAIL ${f}`);
    console.error(`${findings.length} finding(s) in ${resolve(root)} (${checks} checks)`);
    process.exit(1);
  }
  console.log(`observability configs OK: ${checks} checks passed in ${resolve(root)}`);
}

/** Calls `each(node, where)` for every object of a JSON tree (arrays are walked, not passed). */
function walkObjects(node, where, each) {
  if (Array.isArray(node)) {
    node.forEach((n, i) => walkObjects(n, `${where}[${i}]`, each));
    return;
  }
  if (!node || typeof node !== 'object') return;
  each(node, where);
  for (const [k, v] of Object.entries(node)) walkObjects(v, `${where}.${k}`, each);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
