// Assertions of scripts/e2e-serve.sh, made through each program's own HTTP API.
//
//   node scripts/e2e/assert-serve.mjs agents   <agent summary>...        every agent's spans reached Jaeger whole
//   node scripts/e2e/assert-serve.mjs retries  [--single-route] [--delivered-to <replica>] <collector log> <replica>...
//                                                                      the load balancer retries the replicas
//   node scripts/e2e/assert-serve.mjs verdicts <looping summary> <healthy summary>
//   node scripts/e2e/assert-serve.mjs evidence <summary>...            evidence spans = the analyzer's verdicts
//   node scripts/e2e/assert-serve.mjs failover <killed replica's log> <summary>...
//
// An agent summary is the JSON line scripts/e2e/python-agent/agent.py prints (agent, run and trace ids,
// calls made, spans exported). URLs come from E2E_JAEGER_URL, E2E_PROMETHEUS_URL, E2E_ALERTMANAGER_URL and
// E2E_WEBHOOK_URL; E2E_SERVE_CONFIG is the loop-detection config the replicas run with; E2E_SERVE_ALERTS
// lists the alerts the looping agent must raise (`Alertname:/webhook-path`, space-separated);
// E2E_SERVE_LOSS_REPORT is the regular expression (first group: the number of runs) with which a replica
// stopped mid-run reports the runs it lost.
//
// What serve must find is what the offline analyzer (`tool-loop-guard analyze`, the same engine) finds on
// the agent's own spans as Jaeger returns them: every verdict (warning or critical) is one evidence span
// under the judged tool span, saying it was not enforced, and one count of tool_loop.events. The looping scenario's own numbers
// (OpenClaw's defaults: a warning at call 11, a critical at call 21) are checked on the analyzer first, so
// a miss there points at the engine or its adapter, not at serve.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, getJson, runMode, tagOf } from './http.mjs';

const [mode, ...args] = process.argv.slice(2);
const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const EVIDENCE_SPAN = 'run_guardrail tool-loop-guard';
/** OpenClaw's default warning and critical thresholds, with loop detection enabled. */
const FIRST_WARNING_CALL = 11;
const FIRST_CRITICAL_CALL = 21;

let checks = 0;
function check(cond, message) {
  checks++;
  if (!cond) throw new Error(`assertion failed: ${message}`);
}

/** The agent's summary: the last JSON line of its output (a log may hold its warnings too). */
const readSummary = (file) =>
  JSON.parse(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .pop() ?? 'null',
  );
const isTool = (span) => tagOf(span.tags, 'openinference.span.kind') === 'TOOL';
const serviceOf = (trace, span) => trace.processes[span.processID]?.serviceName;
/**
 * Whether a span is the agent's own: of its service, and not an evidence span (serve writes those under
 * the agent's resource, so that Jaeger shows them in its service).
 */
const isAgents = (agent, trace, span) =>
  serviceOf(trace, span) === agent.service_name && span.operationName !== EVIDENCE_SPAN;
const parentOf = (span) => span.references.find((r) => r.refType === 'CHILD_OF')?.spanID;
const byStart = (a, b) => a.startTime - b.startTime;

/** Each of the agent's traces as Jaeger holds it (evidence spans from the replicas included). */
async function tracesOf(agent) {
  const jaeger = env('E2E_JAEGER_URL');
  const traces = [];
  for (const id of agent.trace_ids) {
    const { data } = await getJson(`${jaeger}/api/traces/${id}`);
    if (data?.length !== 1) throw new Error(`trace ${id} of ${agent.agent_id} not found`);
    traces.push(data[0]);
  }
  return traces;
}

/** The agent's own spans of `traces` (not the replicas'), each trace's TOOL spans in start order. */
function agentView(agent, traces) {
  const own = traces.map((t) => t.spans.filter((s) => isAgents(agent, t, s)));
  return { own, tools: own.flat().filter(isTool).sort(byStart) };
}

/** Why Jaeger does not yet hold the agent's complete record, or undefined when it does. */
function incompleteness(agent, traces) {
  const { own, tools } = agentView(agent, traces);
  const spans = own.flat().length;
  if (spans !== agent.spans_exported) return `${agent.agent_id}: ${spans} of ${agent.spans_exported} spans in Jaeger`;
  const rootName = agent.trace_ids.length === 1 ? `invoke_agent ${agent.agent_id}` : 'POST /chat';
  for (const [i, t] of traces.entries()) {
    const ids = new Set(t.spans.map((s) => s.spanID));
    const roots = own[i].filter((s) => s.references.length === 0);
    if (roots.length !== 1 || roots[0].operationName !== rootName)
      return `${agent.agent_id}: trace ${t.traceID} has roots [${roots.map((s) => s.operationName)}], expected one '${rootName}'`;
    const orphans = t.spans.filter((s) => s.references.some((r) => r.refType === 'CHILD_OF' && !ids.has(r.spanID)));
    if (orphans.length) return `${agent.agent_id}: ${orphans.length} span(s) of ${t.traceID} whose parent is missing`;
  }
  if (tools.length !== agent.tool_calls)
    return `${agent.agent_id}: ${tools.length} TOOL spans, the agent made ${agent.tool_calls} calls`;
  return undefined;
}

/**
 * `tool-loop-guard analyze` on the agent's own spans, with the replicas' config: the events of its run, as
 * the processor scopes it. A session over several traces, each under a root span of its own, is one run per
 * turn (its history starts afresh when a turn's root ends: docs/api.md, "Runs and their lifetime"): their
 * events are given in the order of the agent's calls.
 */
function analyze(agent, traces) {
  const dir = mkdtempSync(join(tmpdir(), 'tlg-serve-analyze-'));
  try {
    const data = traces.map((t) => ({ ...t, spans: t.spans.filter((s) => isAgents(agent, t, s)) }));
    const file = join(dir, `${agent.agent_id}.json`);
    writeFileSync(file, JSON.stringify({ data }));
    const out = execFileSync(
      process.execPath,
      ['dist/esm/cli/main.js', 'analyze', '--format', 'jaeger', '--json', '--config', env('E2E_SERVE_CONFIG'), file],
      { encoding: 'utf8' },
    );
    const runs = JSON.parse(out).runs.filter((r) => r.id === agent.run_id);
    check(
      runs.length === agent.trace_ids.length,
      `the analyzer reads ${agent.agent_id}'s spans as run ${agent.run_id}, once per trace (${runs.length})`,
    );
    const calls = runs.reduce((sum, r) => sum + r.calls, 0);
    check(calls === agent.tool_calls, `the analyzer sees ${agent.tool_calls} calls (${calls})`);
    let before = 0;
    return runs.flatMap((r) => {
      const events = r.events.map((e) => ({ ...e, call: e.call + before }));
      before += r.calls;
      return events;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const callsAt = (events, level) => events.filter((e) => e.level === level).map((e) => e.call);
/** The calls with a verdict, in order (one evidence span each), and each one's level. */
const verdictCalls = (events) => {
  const verdicts = events.filter((e) => e.level === 'warning' || e.level === 'critical');
  return {
    calls: verdicts.map((e) => e.call).sort((a, b) => a - b),
    levelAt: new Map(verdicts.map((e) => [e.call, e.level])),
  };
};

// ── agents: the Python agents' spans reach Jaeger whole ─────────────────────────────────────────────
async function agents() {
  check(args.length > 0, 'agent summaries given');
  for (const file of args) {
    const agent = readSummary(file);
    check(agent.spans_failed === 0, `${agent.agent_id}: the agent's exporter delivered every span`);
    check(agent.tool_calls > 0, `${agent.agent_id}: the agent made tool calls`);
    const traces = await eventually(`${agent.agent_id}'s spans complete in Jaeger`, async (why) => {
      const t = await tracesOf(agent);
      const reason = incompleteness(agent, t);
      return reason ? why(reason) : t;
    });
    const { own, tools } = agentView(agent, traces);
    const withoutSession = own.flat().filter((s) => tagOf(s.tags, 'session.id') !== agent.run_id);
    check(
      withoutSession.length === 0,
      `${agent.agent_id}: every span carries session.id=${agent.run_id} (${withoutSession.length} do not)`,
    );
    const names = new Set(tools.map((s) => tagOf(s.tags, 'tool.name')));
    check(names.size === 1 && names.has('lookup_order'), `${agent.agent_id}: the TOOL spans are lookup_order calls`);
    const inputs = new Set(tools.map((s) => tagOf(s.tags, 'input.value')));
    check(
      agent.mode === 'loop' ? inputs.size === 1 : inputs.size === tools.length,
      `${agent.agent_id}: ${agent.mode === 'loop' ? 'one argument repeated' : 'a new argument each call'} (${inputs.size} distinct)`,
    );
    console.log(
      `${agent.agent_id}: ${own.flat().length} spans in ${traces.length} trace(s), ${tools.length} TOOL spans, session ${agent.run_id}`,
    );
  }
}

// ── retries: the load-balancing exporter retries replicas that do not answer, and says so ────────────
/** Retries of load_balancing/serve stay within 5s (collector/serve.yaml), up to 7.5s with their jitter. */
const MAX_RETRY_INTERVAL_MS = 7_500;

/**
 * `retries [--single-route] [--delivered-to <replica>] <collector log> <replica>...`: the collector's
 * load_balancing/serve exporter logged retries towards the replicas, towards nothing else, and dropped
 * nothing. --single-route: every retry names one replica (all the spans were routed one way, as one
 * session routed by run must be). --delivered-to: that replica was retried, and its retries then stopped
 * for longer than the longest retry interval without a drop, so the exporter delivered what it retried.
 */
async function retries() {
  const options = { singleRoute: false, deliveredTo: undefined };
  let rest = args;
  for (;;) {
    if (rest[0] === '--single-route') [options.singleRoute, rest] = [true, rest.slice(1)];
    else if (rest[0] === '--delivered-to') [options.deliveredTo, rest] = [rest[1], rest.slice(2)];
    else break;
  }
  const [log, ...replicas] = rest;
  check(log && replicas.length > 0, 'a collector log and the replica endpoints given');
  /** The collector's log lines saying `message` for load_balancing/serve: their JSON fields and time. */
  const linesOf = (message) =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.includes(message))
      .flatMap((line) => {
        try {
          return [{ ...JSON.parse(line.slice(line.indexOf('{'))), at: Date.parse(line.split('\t')[0]) }];
        } catch {
          return [];
        }
      })
      .filter((fields) => fields['otelcol.component.id'] === 'load_balancing/serve');
  const retryLines = () => linesOf('Exporting failed. Will retry the request after interval.');
  const retried = await eventually(
    `retries of load_balancing/serve in ${log}`,
    async (why) => {
      const counts = new Map();
      for (const { endpoint } of retryLines()) counts.set(endpoint, (counts.get(endpoint) ?? 0) + 1);
      return counts.size > 0 ? counts : why('no retry logged yet');
    },
    30_000,
  );
  const unknown = [...retried.keys()].filter((e) => !replicas.includes(e));
  check(unknown.length === 0, `the load balancer retried only the replicas (also: ${unknown.join(', ')})`);
  if (options.singleRoute)
    check(retried.size === 1, `every retry went to one replica (${[...retried.keys()].join(', ')})`);
  if (options.deliveredTo) {
    check(retried.has(options.deliveredTo), `the load balancer retried ${options.deliveredTo}`);
    await eventually(
      `the retries towards ${options.deliveredTo} to stop`,
      async (why) => {
        const last = Math.max(
          ...retryLines()
            .filter((l) => l.endpoint === options.deliveredTo)
            .map((l) => l.at),
        );
        const quiet = Date.now() - last;
        return quiet > MAX_RETRY_INTERVAL_MS + 1_000 ? quiet : why(`last retry ${quiet} ms ago`);
      },
      60_000,
    );
    checks++;
  }
  const dropped = [...linesOf('Exporting failed. Dropping data.'), ...linesOf('Exporting failed. Rejecting data.')];
  check(dropped.length === 0, `load_balancing/serve dropped nothing (${dropped.length} batches dropped)`);
  console.log(
    `retries: ${[...retried].map(([e, n]) => `${e} x${n}`).join(', ')}; nothing dropped` +
      (options.deliveredTo ? `; ${options.deliveredTo} took what was retried` : ''),
  );
}

// ── verdicts: serve's evidence spans, counter and alerts for the looping agent; none for the healthy ──
/**
 * The evidence spans of one run: every one a child of a TOOL span of the run, one per verdict, with the
 * contract's attributes, its level's verdict type, and `tool_loop.enforced=false` (serve observes).
 */
function evidenceOf(agent, traces, expected) {
  const { tools } = agentView(agent, traces);
  const callOf = new Map(tools.map((s, i) => [s.spanID, i + 1]));
  const evidence = traces.flatMap((t) => t.spans.filter((s) => s.operationName === EVIDENCE_SPAN));
  const parents = evidence.map((s) => callOf.get(parentOf(s)));
  check(
    parents.every((c) => c !== undefined),
    `${agent.agent_id}: every ${EVIDENCE_SPAN} is the child of one of the run's TOOL spans`,
  );
  check(
    JSON.stringify([...parents].sort((a, b) => a - b)) === JSON.stringify(expected.calls),
    `${agent.agent_id}: ${EVIDENCE_SPAN} under calls [${expected.calls}] (found under [${parents}])`,
  );
  for (const [i, s] of evidence.entries()) {
    const level = expected.levelAt.get(parents[i]);
    const want = {
      'gen_ai.operation.name': 'run_guardrail',
      'gen_ai.guardrail.component.name': 'tool-loop-guard',
      'gen_ai.guardrail.verdict.type': level === 'critical' ? 'deny' : 'warn',
      'tool_loop.level': level,
      'tool_loop.run_id': agent.run_id,
      'tool_loop.enforced': false,
    };
    for (const [k, v] of Object.entries(want))
      check(tagOf(s.tags, k) === v, `${agent.agent_id}: ${EVIDENCE_SPAN} has ${k}=${v} (got ${tagOf(s.tags, k)})`);
    const links = s.references.filter((r) => r.refType === 'FOLLOWS_FROM');
    check(
      links.every((r) => callOf.has(r.spanID) && r.spanID !== parentOf(s)),
      `${agent.agent_id}: ${EVIDENCE_SPAN} links only to other calls of the run (${links.length} links)`,
    );
  }
  return evidence;
}

/** Waits until Jaeger holds the run's evidence spans, one per verdict, and checks them (see evidenceOf). */
async function evidenceInJaeger(agent, verdicts) {
  const evidence = await eventually(
    `${agent.agent_id}: ${verdicts.calls.length} evidence spans in Jaeger`,
    async (why) => {
      const traces = await tracesOf(agent);
      const found = traces.flatMap((t) => t.spans.filter((s) => s.operationName === EVIDENCE_SPAN)).length;
      return found >= verdicts.calls.length ? evidenceOf(agent, traces, verdicts) : why(`${found} so far`);
    },
  );
  console.log(`${agent.agent_id}: ${evidence.length} evidence spans, under calls [${verdicts.calls}]`);
}

async function promSeries(expr) {
  const prom = env('E2E_PROMETHEUS_URL');
  const { data } = await getJson(`${prom}/api/v1/query?query=${encodeURIComponent(expr)}`);
  return data.result;
}

async function verdicts() {
  const [looping, healthy] = args.map(readSummary);
  check(looping?.mode === 'loop' && healthy?.mode === 'healthy', 'a looping and a healthy agent summary given');
  const expected = new Map();
  for (const agent of [looping, healthy]) {
    const traces = await tracesOf(agent);
    expected.set(agent, analyze(agent, traces));
  }
  // The scenario on the engine itself, before serve is judged by it.
  const loopEvents = expected.get(looping);
  check(
    callsAt(loopEvents, 'warning')[0] === FIRST_WARNING_CALL &&
      callsAt(loopEvents, 'critical')[0] === FIRST_CRITICAL_CALL,
    `the offline analyzer finds the looping agent's first warning at call ${FIRST_WARNING_CALL} and first critical at call ${FIRST_CRITICAL_CALL} ` +
      `(found warnings at [${callsAt(loopEvents, 'warning')}], criticals at [${callsAt(loopEvents, 'critical')}]): ` +
      'the engine or its OpenInference adapter misses this loop, whatever serve does',
  );
  check(expected.get(healthy).length === 0, 'the offline analyzer finds nothing in the healthy agent');

  // Jaeger: the evidence spans, inside the agent's own trace.
  for (const agent of [looping, healthy]) {
    await evidenceInJaeger(agent, verdictCalls(expected.get(agent)));
  }

  // Prometheus: tool_loop_events_total per level and detector, as the analyzer counts the verdicts.
  // Keys sorted: the analyzer and Prometheus list the series in orders of their own.
  const sorted = (counts) => Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
  const countsOf = (events) => {
    const counts = {};
    for (const e of events) counts[`${e.level}|${e.detector}`] = (counts[`${e.level}|${e.detector}`] ?? 0) + 1;
    return sorted(counts);
  };
  const seriesCounts = async (agent) => {
    const result = await promSeries(
      `sum by (tool_loop_level, tool_loop_detector) (tool_loop_events_total{gen_ai_agent_id="${agent.agent_id}"})`,
    );
    return sorted(
      Object.fromEntries(
        result.map((r) => [`${r.metric.tool_loop_level}|${r.metric.tool_loop_detector}`, Number(r.value[1])]),
      ),
    );
  };
  const want = countsOf(loopEvents);
  await eventually(`tool_loop_events_total for ${looping.agent_id} = ${JSON.stringify(want)}`, async (why) => {
    const got = await seriesCounts(looping);
    return JSON.stringify(got) === JSON.stringify(want) ? got : why(`got ${JSON.stringify(got)}`);
  });
  checks++;
  const healthySeries = await seriesCounts(healthy);
  check(Object.keys(healthySeries).length === 0, `no tool_loop_events_total for ${healthy.agent_id}`);
  console.log(`prometheus: tool_loop_events_total{gen_ai_agent_id="${looping.agent_id}"} ${JSON.stringify(want)}`);

  // Alertmanager -> webhook: the shipped routes, for the looping agent only.
  const webhook = env('E2E_WEBHOOK_URL');
  const alerts = env('E2E_SERVE_ALERTS')
    .split(/\s+/)
    .map((a) => ({ name: a.split(':')[0], path: a.split(':')[1] }));
  await eventually(`alerts ${env('E2E_SERVE_ALERTS')} for ${looping.agent_id} at the webhook`, async (why) => {
    const calls = await getJson(`${webhook}/calls`);
    for (const a of alerts) {
      const hit = calls.some(
        (c) =>
          c.path === a.path &&
          (c.body.alerts ?? []).some(
            (x) =>
              x.status === 'firing' && x.labels.alertname === a.name && x.labels.gen_ai_agent_id === looping.agent_id,
          ),
      );
      if (!hit) return why(`${a.name} not yet at ${a.path}`);
    }
    return true;
  });
  checks++;
  const prom = env('E2E_PROMETHEUS_URL');
  const seenAt = Date.now() / 1000;
  await eventually('a rule evaluation after the alerts fired', async (why) => {
    const { data } = await getJson(`${prom}/api/v1/rules`);
    return data.groups.every((g) => Date.parse(g.lastEvaluation) / 1000 > seenAt + 1) ? true : why('not yet');
  });
  const healthyAlerts = await promSeries(`ALERTS{gen_ai_agent_id="${healthy.agent_id}"}`);
  check(healthyAlerts.length === 0, `no alert firing or pending for ${healthy.agent_id}`);
  console.log(
    `alerts: ${alerts.map((a) => `${a.name} -> ${a.path}`).join(', ')} for ${looping.agent_id}; none for ${healthy.agent_id}`,
  );
}

// ── evidence: serve's evidence spans are the analyzer's verdicts, for each agent ─────────────────────
async function evidence() {
  check(args.length > 0, 'agent summaries given');
  for (const agent of args.map(readSummary)) {
    await evidenceInJaeger(agent, verdictCalls(analyze(agent, await tracesOf(agent))));
  }
}

// ── failover: a replica stopped mid-run loses at most the runs it reports; the others are whole ──────
async function failover() {
  const [killedLog, ...summaries] = args;
  const report = new RegExp(env('E2E_SERVE_LOSS_REPORT')).exec(readFileSync(killedLog, 'utf8'));
  check(report, `the stopped replica reports the runs it lost (/${env('E2E_SERVE_LOSS_REPORT')}/ in its log)`);
  const lost = Number(report[1]);
  check(Number.isInteger(lost) && lost >= 0, `the report gives a number of runs (${report[1]})`);
  // Evidence of the runs the restarted replica judged arrives a grace period and an export later than
  // their spans: wait for it, and fail only if more runs than reported stay without it.
  const agents = summaries.map(readSummary);
  const runsWithoutEvidence = async () => {
    const incomplete = [];
    for (const agent of agents) {
      const traces = await tracesOf(agent);
      const reason = incompleteness(agent, traces);
      if (reason) throw new Error(reason);
      const verdicts = verdictCalls(analyze(agent, traces));
      const evidence = traces.flatMap((t) => t.spans.filter((s) => s.operationName === EVIDENCE_SPAN));
      if (evidence.length < verdicts.calls.length)
        incomplete.push(`${agent.agent_id} (${evidence.length}/${verdicts.calls.length})`);
      else evidenceOf(agent, traces, verdicts);
    }
    return incomplete;
  };
  let incomplete;
  try {
    incomplete = await eventually(
      `at most ${lost} runs without all their evidence spans`,
      async (why) => {
        const runs = await runsWithoutEvidence();
        return runs.length <= lost ? runs : why(runs.join(', '));
      },
      30_000,
    );
  } catch {
    incomplete = await runsWithoutEvidence();
  }
  check(
    incomplete.length <= lost,
    `runs without all their evidence spans (${incomplete.join(', ') || 'none'}) are no more than the ${lost} the replica reported lost`,
  );
  console.log(
    `failover: the stopped replica reported ${lost} runs lost; ${summaries.length - incomplete.length} of ${summaries.length} runs whole`,
  );
}

await runMode({ agents, retries, verdicts, evidence, failover }, mode, {
  usage:
    'usage: node scripts/e2e/assert-serve.mjs agents|retries|verdicts|evidence|failover <args...> (see its header)',
  count: () => checks,
});
