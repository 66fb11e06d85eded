#!/usr/bin/env bash
# End-to-end check of the observability bundle with the real programs, all on 127.0.0.1:
#
#   bash scripts/e2e-observability.sh        (npm run e2e:observability)
#
#   1. builds, or reuses from the cache, our collector (collector/builder-config.yaml) and Jaeger v2;
#      needs Go and the Go module proxy, plus Debian's prometheus and prometheus-alertmanager
#      (scripts/ci-observability.sh installs those);
#   2. `otelcol validate` on every shipped collector config (otel-collector.yaml, loadbalancer.yaml and
#      its tier-2 example);
#   3. starts Jaeger (two in-memory instances), the collector with collector/otel-collector.yaml,
#      Prometheus with the shipped rules, Alertmanager and a webhook receiver, plus the load-balancing tier:
#      collector/loadbalancer.yaml in front of two collectors running otel-collector.yaml;
#   4. runs the demo (node dist/esm/cli/demo.js) exporting spans and the library's counter over OTLP/HTTP,
#      to the collector (enforcing, then in shadow mode) and to the load balancer;
#   5. asserts through each program's API (scripts/e2e/assert.mjs) and stops everything it started,
#      on success and on failure.
#
# The collector configs are the shipped files, unchanged: their endpoints are `${env:VAR:-default}` and
# this script sets the variables. Prometheus and Alertmanager cannot expand variables in their configs,
# so they get generated copies in which only hosts, ports, paths and the intervals are rewritten.
#
# Environment: TLG_E2E_KEEP=1 keeps the work directory (logs, configs); the binaries are cached in
# ${XDG_CACHE_HOME:-$HOME/.cache}/tool-loop-guard/e2e, keyed by the manifest and the Go version.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SERVICE=tool-loop-guard-e2e       # service.name (Prometheus job) of the demo run against the collector
SERVICE_LB=tool-loop-guard-e2e-lb # service.name of the demo run against the load balancer
SERVICE_SHADOW=tool-loop-guard-e2e-shadow # the demo in shadow mode (TOOL_LOOP_GUARD_MODE=shadow)

# shellcheck source=e2e/lib.sh
source "$ROOT/scripts/e2e/lib.sh"
e2e_init e2e "e2e observability"

# ── 1. binaries ──────────────────────────────────────────────────────────────────────────────────────
stage "binaries (cache: $CACHE)"
build_binaries

# ── 2. otelcol validate ──────────────────────────────────────────────────────────────────────────────
stage "otelcol validate: every shipped collector config, with its default endpoints"
node --input-type=module -e "
  import { readFileSync } from 'node:fs';
  import { tier2Example } from './scripts/check-observability-configs.mjs';
  process.stdout.write(tier2Example(readFileSync('collector/loadbalancer.yaml', 'utf8')));
" >"$WORK/tier2-example.yaml"
for config in collector/otel-collector.yaml collector/loadbalancer.yaml "$WORK/tier2-example.yaml"; do
  "$OTELCOL" validate --config="$config" || fail "otelcol validate rejected $config"
  echo "valid: ${config#"$WORK/"}"
done

# ── 3. start everything on 127.0.0.1 ─────────────────────────────────────────────────────────────────
stage "start Jaeger x2, collector, Prometheus, Alertmanager, webhook, load balancer + 2 backends"
free_ports 24
J1_OTLP=${P[0]} J1_HTTP=${P[1]} J1_GRPC=${P[2]}
J2_OTLP=${P[3]} J2_HTTP=${P[4]} J2_GRPC=${P[5]}
COL_GRPC=${P[6]} COL_HTTP=${P[7]} COL_HEALTH=${P[8]} COL_PROM=${P[9]}
TEMPO_PORT=${P[10]}   # no Tempo here (AGPL, not built): nothing listens, the collector's tempo exporter retries
PROM_PORT=${P[11]} AM_PORT=${P[12]} WEBHOOK_PORT=${P[13]}
LB_GRPC=${P[14]} LB_HTTP=${P[15]}
B1_GRPC=${P[16]} B1_HTTP=${P[17]} B1_HEALTH=${P[18]} B1_PROM=${P[19]}
B2_GRPC=${P[20]} B2_HTTP=${P[21]} B2_HEALTH=${P[22]} B2_PROM=${P[23]}

start_jaeger jaeger-1 "$J1_OTLP" "$J1_HTTP" "$J1_GRPC"
start_jaeger jaeger-2 "$J2_OTLP" "$J2_HTTP" "$J2_GRPC"
start webhook node scripts/e2e/webhook.mjs "$WEBHOOK_PORT"

# A collector running the shipped otel-collector.yaml: NAME GRPC HTTP HEALTH PROM JAEGER_OTLP_PORT.
# Its own telemetry is switched off on the command line: three collectors would all claim :8888.
start_collector() {
  start "$1" env OTELCOL_OTLP_GRPC_ENDPOINT="127.0.0.1:$2" OTELCOL_OTLP_HTTP_ENDPOINT="127.0.0.1:$3" \
    OTELCOL_HEALTH_CHECK_ENDPOINT="127.0.0.1:$4" OTELCOL_PROMETHEUS_ENDPOINT="127.0.0.1:$5" \
    JAEGER_OTLP_GRPC_ENDPOINT="127.0.0.1:$6" TEMPO_OTLP_GRPC_ENDPOINT="127.0.0.1:$TEMPO_PORT" \
    "$OTELCOL" --config="$ROOT/collector/otel-collector.yaml" --set=service.telemetry.metrics.level=none
}
start_collector collector "$COL_GRPC" "$COL_HTTP" "$COL_HEALTH" "$COL_PROM" "$J1_OTLP"
start_collector backend-1 "$B1_GRPC" "$B1_HTTP" "$B1_HEALTH" "$B1_PROM" "$J1_OTLP"
start_collector backend-2 "$B2_GRPC" "$B2_HTTP" "$B2_HEALTH" "$B2_PROM" "$J2_OTLP"
start loadbalancer env OTELCOL_OTLP_GRPC_ENDPOINT="127.0.0.1:$LB_GRPC" OTELCOL_OTLP_HTTP_ENDPOINT="127.0.0.1:$LB_HTTP" \
  OTELCOL_LB_BACKEND_1="127.0.0.1:$B1_GRPC" OTELCOL_LB_BACKEND_2="127.0.0.1:$B2_GRPC" \
  "$OTELCOL" --config="$ROOT/collector/loadbalancer.yaml" --set=service.telemetry.metrics.level=none

start_prometheus_alertmanager "$PROM_PORT" "$AM_PORT" "$WEBHOOK_PORT" "$COL_PROM"

wait_http "jaeger-1 query API" "http://127.0.0.1:$J1_HTTP/api/services"
wait_http "jaeger-2 query API" "http://127.0.0.1:$J2_HTTP/api/services"
wait_http webhook "http://127.0.0.1:$WEBHOOK_PORT/calls"
wait_http "collector health_check" "http://127.0.0.1:$COL_HEALTH/"
wait_http "backend-1 health_check" "http://127.0.0.1:$B1_HEALTH/"
wait_http "backend-2 health_check" "http://127.0.0.1:$B2_HEALTH/"
wait_port "load balancer OTLP/HTTP" "$LB_HTTP"
wait_http alertmanager "http://127.0.0.1:$AM_PORT/-/ready"
wait_http prometheus "http://127.0.0.1:$PROM_PORT/-/ready"
echo "all ${#PIDS[@]} processes up"

check_loopback_listeners

# ── 4. the demo, exporting over OTLP/HTTP ────────────────────────────────────────────────────────────
stage "demo -> collector (OTLP/HTTP)"
ensure_built
run_demo() {
  OTEL_EXPORTER_OTLP_ENDPOINT="$2" OTEL_SERVICE_NAME="$1" TOOL_LOOP_GUARD_MODE="${3:-enforce}" \
    node dist/esm/cli/demo.js >"$WORK/$1.demo.txt" 2>&1 \
    || { cat "$WORK/$1.demo.txt"; fail "the demo failed"; }
  tail -n 1 "$WORK/$1.demo.txt"
}
run_demo "$SERVICE" "http://127.0.0.1:$COL_HTTP"

export E2E_JAEGER_URLS="http://127.0.0.1:$J1_HTTP http://127.0.0.1:$J2_HTTP"
export E2E_PROMETHEUS_URL="http://127.0.0.1:$PROM_PORT"
export E2E_ALERTMANAGER_URL="http://127.0.0.1:$AM_PORT"
export E2E_WEBHOOK_URL="http://127.0.0.1:$WEBHOOK_PORT"
export E2E_BACKEND_METRICS_URLS="http://127.0.0.1:$B1_PROM/metrics http://127.0.0.1:$B2_PROM/metrics"

stage "assert: Jaeger, Prometheus, Alertmanager"
node scripts/e2e/assert.mjs single "$SERVICE" "$WORK/$SERVICE.demo.txt"

stage "demo in shadow mode -> collector"
run_demo "$SERVICE_SHADOW" "http://127.0.0.1:$COL_HTTP" shadow

stage "assert: shadow mode (would_* events and counters, no alert)"
node scripts/e2e/assert.mjs shadow "$SERVICE_SHADOW" "$WORK/$SERVICE_SHADOW.demo.txt"

# ── 5. the load-balancing tier ───────────────────────────────────────────────────────────────────────
stage "demo -> load balancer -> 2 backends"
run_demo "$SERVICE_LB" "http://127.0.0.1:$LB_HTTP"

stage "assert: load-balancing tier"
node scripts/e2e/assert.mjs lb "$SERVICE_LB" "$WORK/$SERVICE_LB.demo.txt"

stage "stop everything"
stop_all
check_ports_closed
