// Assertions of scripts/e2e-observability.sh, made through each program's own HTTP API.
//
//   node scripts/e2e/assert.mjs single <service.name> <demo output>   collector -> Jaeger, Prometheus, Alertmanager
//   node scripts/e2e/assert.mjs lb     <service.name> <demo output>   load balancer -> two backends
//
// URLs come from E2E_JAEGER_URLS (two, space-separated: the collector and backend-1 export to the first,
// backend-2 to the second), E2E_PROMETHEUS_URL, E2E_ALERTMANAGER_URL, E2E_WEBHOOK_URL and
// E2E_BACKEND_METRICS_URLS (the two backends' prometheus exporters).
//
// What the demo did is read from its own output (every WARNING, CRITICAL and ABORT line and each agent's
// call count); the guard_armed events, which the demo does not print, are counted in the spans Jaeger
// returns. Every count the pipeline produced is then compared with those.
import { readFileSync } from 'node:fs';
import { eventually, getJson, runMode, tagOf } from './http.mjs';

const [mode, service, demoOutput] = process.argv.slice(2);
const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const JAEGER = env('E2E_JAEGER_URLS').split(/\s+/);

const EVENT = {
  warning: 'tool_loop.warning',
  blocked: 'tool_loop.blocked',
  aborted: 'tool_loop.aborted',
  armed: 'tool_loop.guard_armed',
};
/** Shadow mode's events, and the `tool_loop.action` of each. */
const SHADOW_ACTION_OF = {
  'tool_loop.would_warn': 'would_warn',
  'tool_loop.would_block': 'would_block',
  'tool_loop.would_abort': 'would_abort',
};
/** Count-connector metric and library `tool_loop.action` value of each event. */
const METRIC_OF = {
  [EVENT.warning]: 'tool_loop_warnings_total',
  [EVENT.blocked]: 'tool_loop_blocks_total',
  [EVENT.aborted]: 'tool_loop_aborts_total',
  [EVENT.armed]: 'tool_loop_guard_armed_total',
};
const ACTION_OF = { [EVENT.warning]: 'warn', [EVENT.blocked]: 'block', [EVENT.aborted]: 'abort', [EVENT.armed]: 'arm' };

let checks = 0;
function check(cond, message) {
  checks++;
  if (!cond) throw new Error(`assertion failed: ${message}`);
}
const same = (a, b) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
const sortKeys = (o) => Object.fromEntries(Object.entries(o).sort(([x], [y]) => x.localeCompare(y)));
const show = (o) => JSON.stringify(sortKeys(o));

// ── the demo's own account ───────────────────────────────────────────────────────────────────────────
/** Per agent: calls, outcome and its loop events `{ event, detector, count, tool }` from the demo output. */
function readDemo(file) {
  const agents = new Map();
  let current;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let m;
    if ((m = /^▶ ([\w-]+):/.exec(line))) agents.set(m[1], (current = { id: m[1], events: [] }));
    else if ((m = /^ {4}call \d+: (WARNING|CRITICAL) (\w+) \(count (\d+)\) on (\S+)/.exec(line)))
      current.events.push({
        event: m[1] === 'WARNING' ? EVENT.warning : EVENT.blocked,
        detector: m[2],
        count: Number(m[3]),
        tool: m[4],
      });
    else if ((m = /^ {4}call \d+: ABORT (\w+) \(count (\d+)\) on (\S+)/.exec(line)))
      current.events.push({ event: EVENT.aborted, detector: m[1], count: Number(m[2]), tool: m[3] });
    else if ((m = /^ {2}→ (.+) after (\d+) calls/.exec(line)))
      Object.assign(current, { outcome: m[1], calls: Number(m[2]) });
  }
  check(agents.size >= 5, `the demo output lists its agents (found ${agents.size})`);
  for (const a of agents.values()) check(Number.isInteger(a.calls), `the demo output gives ${a.id}'s call count`);
  return agents;
}

// ── Jaeger ───────────────────────────────────────────────────────────────────────────────────────────
const fieldsOf = (log) => Object.fromEntries(log.fields.map((f) => [f.key, f.value]));
// Span start times are kept to the millisecond, so two blocked calls in a row can tie; the
// demo numbers its call ids (`<agent>-<n>`), which orders them.
const callNumber = (span) =>
  Number(
    String(tagOf(span.tags, 'gen_ai.tool.call.id') ?? '')
      .split('-')
      .pop(),
  );
const eventsOf = (span) => span.logs.map(fieldsOf).filter((f) => String(f.event ?? '').startsWith('tool_loop.'));

/** The demo's traces in one Jaeger, by agent id (root span `invoke_agent <id>`). */
async function tracesByAgent(jaeger, svc, tags) {
  const q = new URLSearchParams({ service: svc, limit: '1000', lookback: '1h' });
  if (tags) q.set('tags', JSON.stringify(tags));
  const { data } = await getJson(`${jaeger}/api/traces?${q}`);
  const byAgent = new Map();
  for (const trace of data) {
    const root = trace.spans.find((s) => s.references.length === 0);
    const agent = root ? tagOf(root.tags, 'gen_ai.agent.id') : undefined;
    if (agent) byAgent.set(agent, trace);
  }
  return { traces: data, byAgent };
}

/** Why a trace is not the complete record of the agent's run, or undefined when it is. */
function incompleteness(trace, agent) {
  const ids = new Set(trace.spans.map((s) => s.spanID));
  const roots = trace.spans.filter((s) => s.references.length === 0);
  if (roots.length !== 1) return `${agent.id}: ${roots.length} root spans`;
  if (roots[0].operationName !== `invoke_agent ${agent.id}`)
    return `${agent.id}: root span is '${roots[0].operationName}'`;
  const orphans = trace.spans.filter((s) => s.references.some((r) => !ids.has(r.spanID)));
  if (orphans.length) return `${agent.id}: ${orphans.length} span(s) whose parent is missing`;
  const tools = trace.spans.filter((s) => tagOf(s.tags, 'gen_ai.operation.name') === 'execute_tool');
  if (tools.length !== agent.calls)
    return `${agent.id}: ${tools.length} tool spans, the demo made ${agent.calls} calls`;
  const compactions = trace.spans.filter((s) => s.operationName === 'compaction.retry').length;
  // Each critical and each abort has one evidence span (the demo registers its provider globally). In
  // shadow mode the demo prints no events: its criticals are the trace's would_block and would_abort.
  const stops = new Set([EVENT.blocked, EVENT.aborted, 'tool_loop.would_block', 'tool_loop.would_abort']);
  const evidence = agent.shadow
    ? trace.spans.flatMap(eventsOf).filter((e) => stops.has(e.event)).length
    : agent.events.filter((e) => stops.has(e.event)).length;
  if (trace.spans.length !== 1 + tools.length + compactions + evidence)
    return `${agent.id}: ${trace.spans.length} spans, expected root + ${tools.length} tools + ${compactions} compaction.retry + ${evidence} ${EVIDENCE_SPAN}`;
  return undefined;
}

const EVIDENCE_SPAN = 'run_guardrail tool-loop-guard';

/**
 * The evidence span of a blocked (or aborting) call: its child, ERROR, a deny verdict enforced as
 * a block (or a run abort, judged on the call's output), and span links (Jaeger's FOLLOWS_FROM
 * references) to the loop's other tool calls in the same trace.
 */
function checkEvidence(id, trace, blockedSpan, blocked) {
  const children = trace.spans.filter(
    (s) =>
      s.operationName === EVIDENCE_SPAN &&
      s.references.some((r) => r.refType === 'CHILD_OF' && r.spanID === blockedSpan.spanID),
  );
  check(children.length === 1, `${id}: the judged call has one ${EVIDENCE_SPAN} child (found ${children.length})`);
  const [evidence] = children;
  if (!evidence) return;
  const want = {
    'gen_ai.operation.name': 'run_guardrail',
    'gen_ai.guardrail.verdict.type': 'deny',
    'gen_ai.guardrail.action.type': blocked ? 'block' : 'abort',
    'gen_ai.guardrail.target.type': blocked ? 'input' : 'output',
    'gen_ai.guardrail.target.id': tagOf(blockedSpan.tags, 'gen_ai.tool.call.id'),
    'otel.status_code': 'ERROR',
  };
  for (const [k, v] of Object.entries(want))
    check(
      String(tagOf(evidence.tags, k)) === String(v),
      `${id}: ${EVIDENCE_SPAN} has ${k}=${v} (got ${tagOf(evidence.tags, k)})`,
    );
  const tools = new Map(
    trace.spans.filter((s) => tagOf(s.tags, 'gen_ai.operation.name') === 'execute_tool').map((s) => [s.spanID, s]),
  );
  const links = evidence.references.filter((r) => r.refType === 'FOLLOWS_FROM');
  // Every stopped loop has earlier members, also one across changing arguments (unknown_tool_repeat).
  check(
    links.length > 0 && links.every((r) => tools.has(r.spanID)),
    `${id}: ${EVIDENCE_SPAN} links only to tool calls of its trace (${links.length} links)`,
  );
  check(
    links.every((r) => r.spanID !== blockedSpan.spanID),
    `${id}: ${EVIDENCE_SPAN} does not link its parent, the judged call`,
  );
}

/** Loop events of a set of traces: count per `event|agent|detector`. */
function countEvents(traces) {
  const counts = {};
  for (const t of traces) {
    for (const s of t.spans) {
      for (const e of eventsOf(s)) {
        const key = `${e.event}|${e['gen_ai.agent.id']}|${e['tool_loop.detector']}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
    }
  }
  return counts;
}

/** The demo's printed events as `event|agent|detector` counts. */
function printedEvents(agents) {
  const counts = {};
  for (const a of agents.values())
    for (const e of a.events)
      counts[`${e.event}|${a.id}|${e.detector}`] = (counts[`${e.event}|${a.id}|${e.detector}`] ?? 0) + 1;
  return counts;
}

/** Waits until Jaeger holds every agent's complete trace; returns the traces by agent and their events. */
async function completeTraces(jaegers, svc, agents) {
  return eventually(`every demo trace of ${svc} complete in Jaeger`, async (why) => {
    const found = new Map();
    for (const j of jaegers) {
      for (const [agent, trace] of (await tracesByAgent(j, svc)).byAgent) {
        if (found.has(agent)) return why(`${agent}'s trace is in two Jaegers`);
        found.set(agent, { trace, jaeger: j });
      }
    }
    for (const a of agents.values()) {
      const hit = found.get(a.id);
      if (!hit) return why(`no trace for ${a.id} yet`);
      const reason = incompleteness(hit.trace, a);
      if (reason) return why(reason);
    }
    return found;
  });
}

/** Jaeger's events must be exactly the demo's printed events, plus guard_armed; returns all counts. */
function expectedEvents(agents, found) {
  const inSpans = countEvents([...found.values()].map((f) => f.trace));
  const printed = printedEvents(agents);
  const withoutArmed = Object.fromEntries(Object.entries(inSpans).filter(([k]) => !k.startsWith(`${EVENT.armed}|`)));
  check(
    same(withoutArmed, printed),
    `span events in Jaeger ${show(withoutArmed)} equal the demo's printed events ${show(printed)}`,
  );
  check(
    Object.keys(inSpans).some((k) => k.startsWith(`${EVENT.armed}|`)),
    'the compaction.retry span armed the guard (a tool_loop.guard_armed event)',
  );
  return inSpans;
}

async function assertJaeger(svc, agents, found) {
  const critical = (await tracesByAgent(JAEGER[0], svc, { 'tool_loop.level': 'critical' })).byAgent;
  const stopped = [...agents.values()]
    .filter((a) => a.events.some((e) => e.event !== EVENT.warning))
    .map((a) => a.id)
    .sort();
  check(
    same(
      Object.fromEntries([...critical.keys()].sort().map((k) => [k, 1])),
      Object.fromEntries(stopped.map((k) => [k, 1])),
    ),
    `tag search tool_loop.level=critical finds exactly the blocked/aborted agents' traces ${stopped.join(', ')} (found ${[...critical.keys()].join(', ')})`,
  );
  const none = (await tracesByAgent(JAEGER[0], svc, { 'tool_loop.level': 'no-such-level' })).traces;
  check(none.length === 0, `tag search with a level nobody emits finds nothing (found ${none.length})`);

  for (const id of stopped) {
    const agent = agents.get(id);
    const trace = critical.get(id);
    check(
      trace.traceID === found.get(id).trace.traceID,
      `${id}: the tag search returns the same trace as the service search`,
    );
    const stops = agent.events.filter((e) => e.event !== EVENT.warning);
    for (const [index, expected] of stops.entries()) {
      // The k-th blocked (or aborted) call of the demo's account is the k-th such span by start time:
      // a run can be blocked twice (OpenClaw's recovery turn, then the critical that ends the run).
      const same = stops.filter((e) => e.event === expected.event);
      const nth = stops.slice(0, index).filter((e) => e.event === expected.event).length;
      const spans = trace.spans
        .filter((s) => eventsOf(s).some((e) => e.event === expected.event))
        .sort((a, b) => a.startTime - b.startTime || callNumber(a) - callNumber(b));
      check(
        spans.length === same.length,
        `${id}: ${same.length} span(s) carry ${expected.event} (found ${spans.length})`,
      );
      const span = spans[nth];
      const e = eventsOf(span).find((x) => x.event === expected.event);
      const blocked = expected.event === EVENT.blocked;
      const want = {
        'tool_loop.level': 'critical',
        'tool_loop.detector': expected.detector,
        'tool_loop.action': blocked ? 'block' : 'abort',
        'tool_loop.count': expected.count,
        'gen_ai.agent.id': id,
        'gen_ai.tool.name': expected.tool.split('/')[0],
        'tool_loop.run_id': `demo-${id}`,
      };
      if (!blocked) want['error.type'] = 'compaction_loop_persisted';
      for (const [k, v] of Object.entries(want))
        check(String(e[k]) === String(v), `${id}: ${expected.event} has ${k}=${v} (got ${e[k]})`);
      check(
        typeof e['tool_loop.message'] === 'string' && e['tool_loop.message'].length > 0,
        `${id}: ${expected.event} has a tool_loop.message`,
      );
      check(
        tagOf(span.tags, 'tool_loop.verdict') === (blocked ? 'critical' : 'aborted'),
        `${id}: the span's tool_loop.verdict is ${blocked ? 'critical' : 'aborted'}`,
      );
      checkEvidence(id, trace, span, blocked);
    }
  }
  console.log(
    `Jaeger: ${found.size} complete traces; tag search tool_loop.level=critical -> ${stopped.length} traces (${stopped.join(', ')}) with their blocked/aborted events`,
  );
}

// ── Prometheus exposition, either through Prometheus or read from an exporter ────────────────────────
/** Expected series values: `metric|agent|detector` (count connector) and `tool_loop_events_total|action|agent|detector`. */
function expectedSeries(events) {
  const out = {};
  for (const [key, n] of Object.entries(events)) {
    const [event, agent, detector] = key.split('|');
    out[`${METRIC_OF[event]}|${agent}|${detector}`] = n;
    const lib = `tool_loop_events_total|${ACTION_OF[event]}|${agent}|${detector}`;
    out[lib] = (out[lib] ?? 0) + n;
  }
  return out;
}
const seriesKey = (name, l) =>
  name === 'tool_loop_events_total'
    ? `${name}|${l.tool_loop_action}|${l.gen_ai_agent_id}|${l.tool_loop_detector}`
    : `${name}|${l.gen_ai_agent_id}|${l.tool_loop_detector}`;

async function prometheusSeries(prom, svc) {
  const out = {};
  // tool_loop_recovery_total counts verdicts' aftermath, not events: assertRecovery checks it.
  const q = `{__name__=~"tool_loop_.+_total", __name__!="tool_loop_recovery_total", job="${svc}"}`;
  const r = await getJson(`${prom}/api/v1/query?query=${encodeURIComponent(q)}`);
  for (const s of r.data.result) {
    const k = seriesKey(s.metric.__name__, s.metric);
    out[k] = (out[k] ?? 0) + Number(s.value[1]);
  }
  return out;
}

/** Series of one collector's prometheus exporter (its /metrics text), for one job. */
async function exporterSeries(url, svc) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  const out = {};
  for (const line of (await res.text()).split('\n')) {
    const m = /^(tool_loop_\w+_total)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] === 'tool_loop_recovery_total') continue;
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (labels.job !== svc) continue;
    const k = seriesKey(m[1], labels);
    out[k] = (out[k] ?? 0) + Number(m[3]);
  }
  return out;
}

/**
 * Every surfaced warning and block opens one recovery watch, settled once (the demo's runs all
 * end): the recovery counter adds up to those events, per agent, with known outcomes only.
 */
async function assertRecovery(svc, events) {
  const want = {};
  for (const [key, n] of Object.entries(events)) {
    const [event, agent] = key.split('|');
    if (event === EVENT.warning || event === EVENT.blocked) want[agent] = (want[agent] ?? 0) + n;
  }
  const prom = env('E2E_PROMETHEUS_URL');
  const q = `tool_loop_recovery_total{job="${svc}"}`;
  const got = await eventually('tool_loop_recovery_total to add up to the surfaced verdicts', async (why) => {
    const r = await getJson(`${prom}/api/v1/query?query=${encodeURIComponent(q)}`);
    const perAgent = {};
    for (const s of r.data.result) {
      if (!['recovered', 'repeated', 'run_ended'].includes(s.metric.tool_loop_recovery_outcome))
        return why(`unknown outcome ${s.metric.tool_loop_recovery_outcome}`);
      perAgent[s.metric.gen_ai_agent_id] = (perAgent[s.metric.gen_ai_agent_id] ?? 0) + Number(s.value[1]);
    }
    if (!same(perAgent, want)) return why(`got ${show(perAgent)}\n  want ${show(want)}`);
    return perAgent;
  });
  checks++;
  console.log(`Prometheus: tool_loop_recovery_total per agent equals the surfaced verdicts ${show(got)}`);
}

async function assertPrometheus(svc, events) {
  const want = expectedSeries(events);
  const prom = env('E2E_PROMETHEUS_URL');
  const got = await eventually('Prometheus counters equal to the demo events', async (why) => {
    const g = await prometheusSeries(prom, svc);
    if (!same(g, want)) return why(`got ${show(g)}\n  want ${show(want)}`);
    return g;
  });
  checks++;
  const perDetector = {};
  for (const [k, n] of Object.entries(got)) {
    const parts = k.split('|');
    const action = parts[0] === 'tool_loop_events_total' ? `tool_loop_action="${parts[1]}", ` : '';
    const d = `${parts[0]}{${action}tool_loop_detector="${parts.at(-1)}"}`;
    perDetector[d] = (perDetector[d] ?? 0) + n;
  }
  console.log(`Prometheus: ${Object.keys(got).length} series equal the demo's events:`);
  for (const [k, n] of Object.entries(sortKeys(perDetector))) console.log(`  ${k} = ${n}`);
}

// ── Alertmanager and the webhook ─────────────────────────────────────────────────────────────────────
async function assertAlerts(svc, agents) {
  const blocked = [...agents.values()].filter((a) => a.events.some((e) => e.event === EVENT.blocked)).map((a) => a.id);
  const aborted = [...agents.values()].filter((a) => a.events.some((e) => e.event === EVENT.aborted)).map((a) => a.id);
  check(blocked.length > 0 && aborted.length > 0, 'the demo blocked and aborted at least one agent each');
  const expected = [
    ...aborted.map((id) => ({
      alertname: 'AgentCompactionLoopPersisted',
      agent: id,
      path: '/page',
      receiver: 'pager',
      severity: 'page',
    })),
    ...blocked.map((id) => ({
      alertname: 'AgentToolCallsBlocked',
      agent: id,
      path: '/chat',
      receiver: 'team-chat',
      severity: 'warning',
    })),
  ];
  const webhook = env('E2E_WEBHOOK_URL');
  await eventually('every expected alert at the webhook', async (why) => {
    const calls = await getJson(`${webhook}/calls`);
    for (const x of expected) {
      const hit = calls.find(
        (c) =>
          c.path === x.path &&
          c.body.receiver === x.receiver &&
          c.body.status === 'firing' &&
          c.body.alerts.some(
            (a) => a.status === 'firing' && a.labels.alertname === x.alertname && a.labels.gen_ai_agent_id === x.agent,
          ),
      );
      if (!hit)
        return why(
          `${x.alertname} for ${x.agent} not yet at ${x.path}; calls so far: ${calls.map((c) => `${c.path}:${c.body.alerts?.map((a) => `${a.labels.alertname}/${a.labels.gen_ai_agent_id}`)}`).join(' ')}`,
        );
      const alert = hit.body.alerts.find(
        (a) => a.labels.alertname === x.alertname && a.labels.gen_ai_agent_id === x.agent,
      );
      const want = { alertname: x.alertname, severity: x.severity, job: svc, gen_ai_agent_id: x.agent };
      for (const [k, v] of Object.entries(want))
        check(alert.labels[k] === v, `${x.alertname} for ${x.agent}: label ${k}=${v} (got ${alert.labels[k]})`);
      check(
        String(alert.annotations.summary ?? '').includes(x.agent),
        `${x.alertname} for ${x.agent}: the summary names the agent`,
      );
      check(
        String(alert.annotations.traceql ?? '').includes(`event.gen_ai.agent.id = "${x.agent}"`),
        `${x.alertname} for ${x.agent}: the traceql annotation selects the agent`,
      );
    }
    return true;
  });
  const active = await getJson(`${env('E2E_ALERTMANAGER_URL')}/api/v2/alerts?active=true`);
  for (const x of expected) {
    check(
      active.some(
        (a) => a.labels.alertname === x.alertname && a.labels.gen_ai_agent_id === x.agent && a.labels.job === svc,
      ),
      `Alertmanager's API lists ${x.alertname} for ${x.agent} as active`,
    );
  }
  console.log(
    `Alertmanager -> webhook: ${expected.map((x) => `${x.alertname}{${x.agent}} -> ${x.receiver}`).join(', ')}`,
  );
}

// ── modes ────────────────────────────────────────────────────────────────────────────────────────────
async function single() {
  const agents = readDemo(demoOutput);
  const found = await completeTraces([JAEGER[0]], service, agents);
  const events = expectedEvents(agents, found);
  await assertJaeger(service, agents, found);
  await assertPrometheus(service, events);
  await assertRecovery(service, events);
  await assertAlerts(service, agents);
}

async function lb() {
  const agents = readDemo(demoOutput);
  const found = await completeTraces(JAEGER, service, agents);
  const events = expectedEvents(agents, found);
  const metricsUrls = env('E2E_BACKEND_METRICS_URLS').split(/\s+/);
  const perBackend = JAEGER.map((j) => [...found.values()].filter((f) => f.jaeger === j).map((f) => f.trace));
  const libraryKeys = (o) => Object.keys(o).filter((k) => k.startsWith('tool_loop_events_total|'));
  const got = await eventually("both backends' counters to add up to the demo events", async (why) => {
    const series = await Promise.all(metricsUrls.map((u) => exporterSeries(u, service)));
    const sum = {};
    for (const s of series) for (const [k, n] of Object.entries(s)) sum[k] = (sum[k] ?? 0) + n;
    const want = expectedSeries(events);
    if (!same(sum, want)) return why(`sum ${show(sum)}\n  want ${show(want)}`);
    return series;
  });
  checks++;
  for (const [i, series] of got.entries()) {
    // Span-derived counters live where the trace went: the same backend holds both.
    const own = expectedSeries(countEvents(perBackend[i]));
    const spanDerived = (o) =>
      Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith('tool_loop_events_total|')));
    check(
      same(spanDerived(series), spanDerived(own)),
      `backend-${i + 1}'s span-derived counters ${show(spanDerived(series))} match the traces it forwarded ${show(spanDerived(own))}`,
    );
  }
  // The library's counter is routed by service: one backend holds all of it (single writer per series).
  const writers = got.filter((s) => libraryKeys(s).length > 0).length;
  check(writers === 1, `tool_loop_events_total of one service reaches exactly one backend (found ${writers})`);
  const split = perBackend.map(
    (ts, i) =>
      `backend-${i + 1}: ${ts.length} traces (${ts.map((t) => tagOf(t.spans.find((s) => s.references.length === 0).tags, 'gen_ai.agent.id')).join(', ') || 'none'})`,
  );
  console.log(`load balancer: every trace whole on one backend; ${split.join('; ')}`);
  console.log(
    "load balancer: the two backends' counters add up to the demo's events; tool_loop_events_total on one backend",
  );
}

/**
 * The demo run in shadow mode (TOOL_LOOP_GUARD_MODE=shadow): every run goes on to its own end, the
 * spans carry only would_* events (and the evidence spans of would-be criticals, enforcing nothing),
 * the collector's tool_loop_shadow_verdicts_total and the library's counter equal those events, and
 * no alert fires or is pending for the service.
 */
async function shadow() {
  const agents = readDemo(demoOutput);
  for (const a of agents.values()) {
    check(a.events.length === 0, `${a.id}: shadow mode prints no verdict (callbacks are not called)`);
    a.shadow = true;
  }
  const found = await completeTraces([JAEGER[0]], service, agents);
  const traces = [...found.values()].map((f) => f.trace);
  const inSpans = countEvents(traces);
  const enforced = Object.keys(inSpans).filter((k) =>
    [EVENT.warning, EVENT.blocked, EVENT.aborted].includes(k.split('|')[0]),
  );
  check(enforced.length === 0, `no enforced event in shadow mode (found ${enforced.join(', ')})`);
  for (const event of Object.keys(SHADOW_ACTION_OF))
    check(
      Object.keys(inSpans).some((k) => k.startsWith(`${event}|`)),
      `the demo's loops give ${event} events (found ${show(inSpans)})`,
    );
  const spans = traces.flatMap((t) => t.spans);
  check(
    spans.every((s) => tagOf(s.tags, 'tool_loop.verdict') === undefined),
    'no span carries tool_loop.verdict in shadow mode',
  );
  const evidence = spans.filter((s) => s.operationName === EVIDENCE_SPAN);
  check(
    evidence.length > 0 &&
      evidence.every(
        (s) =>
          tagOf(s.tags, 'gen_ai.guardrail.action.type') === 'allow' && tagOf(s.tags, 'otel.status_code') !== 'ERROR',
      ),
    `${evidence.length} ${EVIDENCE_SPAN} span(s), each enforcing nothing (action allow, status not ERROR)`,
  );

  const want = {};
  for (const [key, n] of Object.entries(inSpans)) {
    const [event, agent, detector] = key.split('|');
    const action = SHADOW_ACTION_OF[event];
    if (!action) continue;
    for (const name of ['tool_loop_shadow_verdicts_total', 'tool_loop_events_total']) {
      const k = `${name}|${action}|${agent}|${detector}`;
      want[k] = (want[k] ?? 0) + n;
    }
  }
  const prom = env('E2E_PROMETHEUS_URL');
  const q = `{__name__=~"tool_loop_.+_total", __name__!="tool_loop_recovery_total", job="${service}"}`;
  await eventually('Prometheus shadow counters equal the would_* events', async (why) => {
    const r = await getJson(`${prom}/api/v1/query?query=${encodeURIComponent(q)}`);
    const got = {};
    for (const x of r.data.result) {
      const m = x.metric;
      // The guard arms and closes its window in shadow mode as in any other (actions arm, report).
      if (m.__name__ === 'tool_loop_guard_armed_total' || ['arm', 'report'].includes(m.tool_loop_action)) continue;
      const k = `${m.__name__}|${m.tool_loop_action}|${m.gen_ai_agent_id}|${m.tool_loop_detector}`;
      got[k] = (got[k] ?? 0) + Number(x.value[1]);
    }
    if (!same(got, want)) return why(`got ${show(got)}\n  want ${show(want)}`);
    return got;
  });
  checks++;
  // Every rule evaluation after the series were there must leave the service without an alert.
  const seenAt = Date.now() / 1000;
  await eventually('a rule evaluation after the shadow series arrived', async (why) => {
    const { data } = await getJson(`${prom}/api/v1/rules`);
    const evaluated = data.groups.every((g) => Date.parse(g.lastEvaluation) / 1000 > seenAt + 1);
    return evaluated ? true : why('the rule groups have not been evaluated since');
  });
  const alerts = await getJson(`${prom}/api/v1/query?query=${encodeURIComponent(`ALERTS{job="${service}"}`)}`);
  check(
    alerts.data.result.length === 0,
    `no alert firing or pending for the shadow service (found ${alerts.data.result.map((a) => `${a.metric.alertname}/${a.metric.alertstate}`).join(', ')})`,
  );
  console.log(
    `shadow: ${Object.keys(want).length / 2} would_* series in tool_loop_shadow_verdicts_total and tool_loop_events_total equal the spans' events; ${evidence.length} evidence spans enforce nothing; no alert`,
  );
}

await runMode({ single, lb, shadow }, mode, {
  usage: 'usage: node scripts/e2e/assert.mjs single|lb|shadow <service.name> <demo output file>',
  argsGiven: Boolean(service && demoOutput),
  count: () => checks,
});
