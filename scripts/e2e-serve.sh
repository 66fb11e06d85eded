#!/usr/bin/env bash
# End-to-end check of `tool-loop-guard serve` behind the collector, with a real Python agent, all on 127.0.0.1:
#
#   bash scripts/e2e-serve.sh        (npm run e2e:serve)
#
#   1. binaries: our collector (collector/builder-config.yaml) and Jaeger v2, cached as in
#      scripts/e2e-observability.sh, Debian's Prometheus and Alertmanager, the Python agent's virtualenv
#      (scripts/e2e/python-agent/install.sh: pinned, hashed, cached), dist/;
#   2. `otelcol validate` on otel-collector.yaml + serve.yaml, and + serve-route-by-run.yaml;
#   3. starts Jaeger, the collector (otel-collector.yaml + serve.yaml: traces to Jaeger and, by trace id,
#      to two serve replicas; the replicas' output back in on a receiver of its own), a second collector
#      routing by run (+ serve-route-by-run.yaml), Prometheus with the shipped rules, Alertmanager with the
#      shipped routes, a webhook receiver, and the two replicas;
#   4. runs the Python agents (LangGraph + OpenInference, scripted model): a looping and a healthy one
#      through the first collector, a looping conversation of three traces through the second; asserts that
#      their spans reached Jaeger whole;
#   5. the looping agent's trace holds the evidence spans (children of its tool spans), Prometheus
#      counts tool_loop_events_total, Alertmanager fires the shipped alert; the healthy agent gets none of it;
#      the conversation routed by run is judged whole; then one replica is stopped mid-run and restarted:
#      the collector retries and delivers, the replica reports the runs it lost, and no other run loses any.
#   Every process is stopped at the end, on success and on failure (scripts/e2e/lib.sh).
#
# Environment: TLG_E2E_KEEP=1 keeps the work directory (logs, configs, agent summaries); TLG_SERVE_CMD,
# TLG_SERVE_LOSS_REPORT and TLG_SERVE_ALERTS override the service's settings below.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# ── the service under test ───────────────────────────────────────────────────────────────────────────
# One replica's command line. Placeholders: {grpc} and {http}, its OTLP listen addresses (127.0.0.1:port);
# {export}, the collector's OTLP/HTTP endpoint for its output (evidence spans, tool_loop.events), also
# given as OTEL_EXPORTER_OTLP_ENDPOINT; {config}, the loop-detection config file (OpenClaw's defaults with
# detection on). Each replica also gets OTEL_SERVICE_NAME=$SERVE_SERVICE,
# OTEL_RESOURCE_ATTRIBUTES=service.instance.id=serve-<n> and OTEL_METRIC_EXPORT_INTERVAL=1000.
SERVE_CMD='node dist/esm/cli/main.js serve --grpc {grpc} --http {http} --export {export} --config {config}'
SERVE_CMD="${TLG_SERVE_CMD:-$SERVE_CMD}"
# How a replica stopped with runs in memory reports them (a JavaScript regular expression on its log;
# the first group is the number of runs lost).
SERVE_LOSS_REPORT="${TLG_SERVE_LOSS_REPORT:-([0-9]+) (in-memory |live )?runs? (lost|dropped|released unjudged)}"
# The alerts the looping agent must raise through the shipped rules and routes: alertname:webhook-path.
SERVE_ALERTS="${TLG_SERVE_ALERTS:-AgentToolCallsBlocked:/chat}"
SERVE_SERVICE=tool-loop-guard-serve

AGENT_SERVICE=tool-loop-guard-e2e-python  # service.name of the Python agents
CALLS=30                                  # the acceptance scenario: warning at call 11, critical at 21
# The conversation's 3 turns are 3 traces, each under a root span of its own: the processor's run
# scoping starts the session's history afresh at each turn, so each turn of 15 calls loops on its own
# (a warning at its 11th call), on the one replica routing by run picks.
CONVERSATION_CALLS=45
FAILOVER_RUNS=8                           # looping agents running while a replica is stopped

# shellcheck source=e2e/lib.sh
source "$ROOT/scripts/e2e/lib.sh"
e2e_init e2e-serve "e2e serve"

# ── 1. binaries ──────────────────────────────────────────────────────────────────────────────────────
stage "binaries (cache: $CACHE)"
build_binaries

stage "Python agent: LangGraph + openinference-instrumentation-langchain (pinned, cached virtualenv)"
PY="$(bash scripts/e2e/python-agent/install.sh | tail -n 1)"
"$PY" -c 'import importlib.metadata as m; print(", ".join(f"{p} {m.version(p)}" for p in ("langgraph", "langchain-core", "openinference-instrumentation-langchain", "opentelemetry-sdk")))'

stage "build (dist/)"
ensure_built

# ── 2. otelcol validate ──────────────────────────────────────────────────────────────────────────────
stage "otelcol validate: the serve overlays, with their default endpoints"
SERVE_CONFIGS=(--config="$ROOT/collector/otel-collector.yaml" --config="$ROOT/collector/serve.yaml")
BY_RUN_CONFIGS=("${SERVE_CONFIGS[@]}" --config="$ROOT/collector/serve-route-by-run.yaml")
"$OTELCOL" validate "${SERVE_CONFIGS[@]}" || fail "otelcol validate rejected otel-collector.yaml + serve.yaml"
echo "valid: otel-collector.yaml + serve.yaml"
"$OTELCOL" validate "${BY_RUN_CONFIGS[@]}" || fail "otelcol validate rejected ... + serve-route-by-run.yaml"
echo "valid: otel-collector.yaml + serve.yaml + serve-route-by-run.yaml"

# ── 3. start everything on 127.0.0.1 ─────────────────────────────────────────────────────────────────
stage "start Jaeger, collector (by trace), collector (by run), Prometheus, Alertmanager, webhook, 2 serve replicas"
free_ports 25
J_OTLP=${P[0]} J_HTTP=${P[1]} J_GRPC=${P[2]}
COL_GRPC=${P[3]} COL_HTTP=${P[4]} COL_HEALTH=${P[5]} COL_PROM=${P[6]} COL_TELEMETRY=${P[7]}
COL_SERVE_GRPC=${P[8]} COL_SERVE_HTTP=${P[9]}
RUN_GRPC=${P[10]} RUN_HTTP=${P[11]} RUN_HEALTH=${P[12]} RUN_PROM=${P[13]} RUN_TELEMETRY=${P[14]}
RUN_SERVE_GRPC=${P[15]} RUN_SERVE_HTTP=${P[16]}
TEMPO_PORT=${P[17]}   # no Tempo here (AGPL, not built): nothing listens, the collectors' tempo exporters retry
PROM_PORT=${P[18]} AM_PORT=${P[19]} WEBHOOK_PORT=${P[20]}
R1_GRPC=${P[21]} R1_HTTP=${P[22]} R2_GRPC=${P[23]} R2_HTTP=${P[24]}
REPLICAS=("127.0.0.1:$R1_GRPC" "127.0.0.1:$R2_GRPC")

start_jaeger jaeger "$J_OTLP" "$J_HTTP" "$J_GRPC"
start webhook node scripts/e2e/webhook.mjs "$WEBHOOK_PORT"

# A collector running the shipped configs plus the serve overlays:
#   NAME GRPC HTTP HEALTH PROM TELEMETRY SERVE_GRPC SERVE_HTTP CONFIGS...
# Its own metrics go to 127.0.0.1:TELEMETRY (scripts/e2e/otelcol-telemetry.yaml), not the shared :8888.
start_serve_collector() {
  local name="$1" grpc="$2" http="$3" health="$4" prom="$5" telemetry="$6" serve_grpc="$7" serve_http="$8"
  shift 8
  start "$name" env OTELCOL_OTLP_GRPC_ENDPOINT="127.0.0.1:$grpc" OTELCOL_OTLP_HTTP_ENDPOINT="127.0.0.1:$http" \
    OTELCOL_HEALTH_CHECK_ENDPOINT="127.0.0.1:$health" OTELCOL_PROMETHEUS_ENDPOINT="127.0.0.1:$prom" \
    OTELCOL_TELEMETRY_PORT="$telemetry" JAEGER_OTLP_GRPC_ENDPOINT="127.0.0.1:$J_OTLP" \
    TEMPO_OTLP_GRPC_ENDPOINT="127.0.0.1:$TEMPO_PORT" \
    OTELCOL_SERVE_OTLP_GRPC_ENDPOINT="127.0.0.1:$serve_grpc" OTELCOL_SERVE_OTLP_HTTP_ENDPOINT="127.0.0.1:$serve_http" \
    TLG_SERVE_REPLICA_1="${REPLICAS[0]}" TLG_SERVE_REPLICA_2="${REPLICAS[1]}" \
    "$OTELCOL" "$@" --config="$ROOT/scripts/e2e/otelcol-telemetry.yaml"
}
start_serve_collector collector "$COL_GRPC" "$COL_HTTP" "$COL_HEALTH" "$COL_PROM" "$COL_TELEMETRY" \
  "$COL_SERVE_GRPC" "$COL_SERVE_HTTP" "${SERVE_CONFIGS[@]}"
start_serve_collector collector-by-run "$RUN_GRPC" "$RUN_HTTP" "$RUN_HEALTH" "$RUN_PROM" "$RUN_TELEMETRY" \
  "$RUN_SERVE_GRPC" "$RUN_SERVE_HTTP" "${BY_RUN_CONFIGS[@]}"
start_prometheus_alertmanager "$PROM_PORT" "$AM_PORT" "$WEBHOOK_PORT" "$COL_PROM"

# OpenClaw's defaults with loop detection on, as the acceptance tests run them.
printf '{ tools: { loopDetection: { enabled: true } } }\n' >"$WORK/loop-detection.json5"

# A serve replica: NAME GRPC_PORT HTTP_PORT INSTANCE, from SERVE_CMD; waits until both ports listen.
start_replica() {
  local cmd="$SERVE_CMD" argv
  cmd="${cmd//\{grpc\}/127.0.0.1:$2}"
  cmd="${cmd//\{http\}/127.0.0.1:$3}"
  cmd="${cmd//\{export\}/http://127.0.0.1:$COL_SERVE_HTTP}"
  cmd="${cmd//\{config\}/$WORK/loop-detection.json5}"
  read -r -a argv <<<"$cmd"
  start "$1" env OTEL_SERVICE_NAME="$SERVE_SERVICE" OTEL_RESOURCE_ATTRIBUTES="service.instance.id=$4" \
    OTEL_METRIC_EXPORT_INTERVAL=1000 OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$COL_SERVE_HTTP" "${argv[@]}"
  wait_port "$1 OTLP/gRPC" "$2"
  wait_port "$1 OTLP/HTTP" "$3"
}
start_replica serve-1 "$R1_GRPC" "$R1_HTTP" serve-1
start_replica serve-2 "$R2_GRPC" "$R2_HTTP" serve-2

wait_http "jaeger query API" "http://127.0.0.1:$J_HTTP/api/services"
wait_http webhook "http://127.0.0.1:$WEBHOOK_PORT/calls"
wait_http "collector health_check" "http://127.0.0.1:$COL_HEALTH/"
wait_http "collector-by-run health_check" "http://127.0.0.1:$RUN_HEALTH/"
wait_http alertmanager "http://127.0.0.1:$AM_PORT/-/ready"
wait_http prometheus "http://127.0.0.1:$PROM_PORT/-/ready"
echo "all ${#PIDS[@]} processes up"
check_loopback_listeners

export E2E_JAEGER_URL="http://127.0.0.1:$J_HTTP"
export E2E_PROMETHEUS_URL="http://127.0.0.1:$PROM_PORT"
export E2E_ALERTMANAGER_URL="http://127.0.0.1:$AM_PORT"
export E2E_WEBHOOK_URL="http://127.0.0.1:$WEBHOOK_PORT"
export E2E_SERVE_CONFIG="$WORK/loop-detection.json5"
export E2E_SERVE_ALERTS="$SERVE_ALERTS"
export E2E_SERVE_LOSS_REPORT="$SERVE_LOSS_REPORT"

# ── 4. the Python agents ─────────────────────────────────────────────────────────────────────────────
# agent_env ENDPOINT PROTOCOL: the OTel variables of an agent exporting to ENDPOINT.
agent_env() {
  echo OTEL_EXPORTER_OTLP_ENDPOINT="$1" OTEL_EXPORTER_OTLP_PROTOCOL="$2" OTEL_SERVICE_NAME="$AGENT_SERVICE" \
    OTEL_BSP_SCHEDULE_DELAY=200
}
# run_agent ID ENDPOINT PROTOCOL ARGS...: runs agent.py to its end; its summary goes to $WORK/ID.json.
run_agent() {
  local id="$1" endpoint="$2" protocol="$3"
  shift 3
  # shellcheck disable=SC2046 # agent_env prints NAME=value words
  env $(agent_env "$endpoint" "$protocol") "$PY" scripts/e2e/python-agent/agent.py --agent-id "$id" "$@" \
    >"$WORK/$id.json" 2>"$LOGS/agent-$id.log" || { cat "$LOGS/agent-$id.log"; fail "the Python agent $id failed"; }
  cat "$WORK/$id.json"
}

stage "Python agents -> collector: looping (OTLP/gRPC), healthy (OTLP/HTTP)"
run_agent looper "http://127.0.0.1:$COL_GRPC" grpc --mode loop --calls "$CALLS"
run_agent steady "http://127.0.0.1:$COL_HTTP" http/protobuf --mode healthy --calls "$CALLS"

stage "Python agent -> collector routing by run: a looping conversation over 3 traces"
run_agent conversation "http://127.0.0.1:$RUN_GRPC" grpc --mode loop --calls "$CONVERSATION_CALLS" --turns 3

stage "assert: every agent's spans in Jaeger"
node scripts/e2e/assert-serve.mjs agents "$WORK/looper.json" "$WORK/steady.json" "$WORK/conversation.json"

# A collector's own metric, summed over the series whose line matches every further argument (awk index).
collector_metric() {
  local port="$1" name="$2"
  shift 2
  curl -fsS "http://127.0.0.1:$port/metrics" | awk -v name="$name" -v filters="$*" '
    $1 ~ "^" name "({|$)" { for (i = 1; i <= split(filters, f, " "); i++) if (!index($0, f[i])) next; n += $NF }
    END { print n + 0 }'
}
# ── 5. the verdicts ──────────────────────────────────────────────────────────────────────────────────
stage "assert: evidence spans in Jaeger, tool_loop_events_total in Prometheus, alerts (looping only)"
node scripts/e2e/assert-serve.mjs verdicts "$WORK/looper.json" "$WORK/steady.json"

stage "assert: the conversation routed by run is judged whole"
node scripts/e2e/assert-serve.mjs evidence "$WORK/conversation.json"

stage "failover: $FAILOVER_RUNS looping agents; serve-2 stopped mid-run, then restarted"
accepted_before="$(collector_metric "$COL_TELEMETRY" otelcol_receiver_accepted_spans 'receiver="otlp"')"
failover_summaries=()
for i in $(seq 1 "$FAILOVER_RUNS"); do
  # shellcheck disable=SC2046 # agent_env prints NAME=value words
  start "agent-failover-$i" env $(agent_env "http://127.0.0.1:$COL_GRPC" grpc) "$PY" scripts/e2e/python-agent/agent.py \
    --agent-id "failover-$i" --mode loop --calls "$CALLS" --step-delay 0.2
  failover_summaries+=("$LOGS/agent-failover-$i.log")
done
# Stop serve-2 once every run is under way (about 10 of each run's spans in), with ~8 of its 30 calls made.
for _ in $(seq 1 150); do
  [ "$(collector_metric "$COL_TELEMETRY" otelcol_receiver_accepted_spans 'receiver="otlp"')" -ge $((accepted_before + 10 * FAILOVER_RUNS)) ] && break
  sleep 0.2
done
stop_one serve-2 TERM
echo "serve-2 stopped; its report: $(grep -E -o "$SERVE_LOSS_REPORT" "$LOGS/serve-2.log" | tail -n 1 || echo none)"
sleep 2
start_replica serve-2-restarted "$R2_GRPC" "$R2_HTTP" serve-2
echo "serve-2 restarted on the same ports"
for i in $(seq 1 "$FAILOVER_RUNS"); do
  wait "$(pid_of "agent-failover-$i")" || fail "the Python agent failover-$i failed (see its log)"
done

stage "assert: the collector retried serve-2 and delivered; serve-2 lost no more runs than it reported"
# With $FAILOVER_RUNS runs spread by trace id over two replicas, some go to serve-2 (all miss it with
# probability 2^-$FAILOVER_RUNS).
node scripts/e2e/assert-serve.mjs retries --delivered-to "${REPLICAS[1]}" "$LOGS/collector.log" "${REPLICAS[@]}"
node scripts/e2e/assert-serve.mjs failover "$LOGS/serve-2.log" "${failover_summaries[@]}"

stage "stop everything"
stop_all
check_ports_closed
