#!/usr/bin/env bash
# Offline verification of the observability bundle (collector/ + docker-compose.yml). No Docker engine needed.
#
#   scripts/ci-observability.sh            # from anywhere; needs node_modules (npm ci) for dclint, yaml, vitest
#   CI_OBS_SKIP_VITEST=1 scripts/ci-observability.sh   # skip the vitest step (e.g. when `npm test` runs it anyway)
#
# Installs Debian's prometheus (promtool), prometheus-alertmanager (amtool), docker-compose 1.29 and chromium (for the HTML report's browser test) when they
# are missing (needs root and apt), then runs:
#   promtool check rules / test rules / check config, a PromQL syntax check of the dashboard queries,
#   amtool check-config + a routing test, dclint, docker-compose config -q, the structural checker,
#   and vitest test/observability (structural negative tests + the end-to-end alert test).
# The live run of the same configs with the real collector, Jaeger, Prometheus and Alertmanager is
# scripts/e2e-observability.sh (needs Go; .ci/run runs it right after this script).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

step() { printf '\n== %s\n' "$*"; }

# ── tools ────────────────────────────────────────────────────────────────────────────────────────────
have_all_tools() {
  command -v promtool >/dev/null && command -v prometheus >/dev/null && command -v amtool >/dev/null \
    && { command -v prometheus-alertmanager >/dev/null || command -v alertmanager >/dev/null; } \
    && command -v docker-compose >/dev/null && command -v chromium >/dev/null
}
if ! have_all_tools; then
  step "installing prometheus, prometheus-alertmanager, docker-compose, chromium (apt)"
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing tools and not root: run as root or install prometheus prometheus-alertmanager docker-compose chromium" >&2
    exit 1
  fi
  # --no-install-recommends: otherwise docker-compose pulls in docker.io (an engine we neither need nor start)
  # and prometheus pulls in node-exporter and friends. The postinst scripts do not start services here.
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus prometheus-alertmanager docker-compose chromium fonts-dejavu-core
fi
promtool --version 2>&1 | sed -n 1p   # sed reads all input: no SIGPIPE under pipefail
amtool --version 2>&1 | sed -n 1p   # sed reads all input: no SIGPIPE under pipefail
docker-compose version 2>&1 | sed -n 1p   # sed reads all input: no SIGPIPE under pipefail
node --version

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# ── Prometheus ───────────────────────────────────────────────────────────────────────────────────────
step "promtool check rules"
promtool check rules collector/prometheus/rules/*.rules.yml

step "promtool test rules"
promtool test rules collector/prometheus/tests/*.test.yml

step "promtool check config (copy with the rule path rewritten to collector/prometheus/rules/)"
sed "s#/etc/prometheus/rules/#$ROOT/collector/prometheus/rules/#" collector/prometheus/prometheus.yml > "$TMP/prometheus.yml"
promtool check config "$TMP/prometheus.yml"

step "PromQL syntax of the dashboard queries (as a throw-away rule file, Grafana variables substituted)"
node --input-type=module - "$TMP/dashboard-queries.rules.yml" collector/grafana/dashboards/*.json <<'EOF'
import { readFileSync, writeFileSync } from 'node:fs';
import YAML from 'yaml';
const [out, ...dashboards] = process.argv.slice(2);
const rules = [];
for (const f of dashboards) {
  const d = JSON.parse(readFileSync(f, 'utf8'));
  for (const p of d.panels ?? []) {
    for (const t of p.targets ?? []) {
      if (typeof t.expr !== 'string') continue; // Tempo (TraceQL) targets have no expr
      const expr = t.expr.replaceAll('$__rate_interval', '1m').replaceAll('$__range', '1h').replaceAll('$agent', '.*');
      rules.push({ record: `dashboard:panel_${p.id}_${t.refId}`.toLowerCase(), expr });
    }
  }
}
if (rules.length === 0) throw new Error('no PromQL targets found in the dashboards');
writeFileSync(out, YAML.stringify({ groups: [{ name: 'dashboard-queries', rules }] }));
console.log(`${rules.length} dashboard queries extracted`);
EOF
promtool check rules "$TMP/dashboard-queries.rules.yml"

# ── Alertmanager ─────────────────────────────────────────────────────────────────────────────────────
step "amtool check-config"
amtool check-config collector/alertmanager/alertmanager.yml

step "amtool routing: pages go to the pager, warnings and notices to team-chat"
route_of() { amtool config routes test --config.file=collector/alertmanager/alertmanager.yml "$@" 2>/dev/null; }
expect_route() {
  local want="$1"; shift
  local got; got="$(route_of "$@" || true)"
  [ "$got" = "$want" ] || { echo "routing $* -> '$got', expected '$want'" >&2; exit 1; }
}
expect_route pager alertname=AgentCompactionLoopPersisted severity=page
expect_route team-chat alertname=AgentToolCallsBlocked severity=warning
expect_route team-chat alertname=AgentToolLoopWarningsSustained severity=notice
echo "routes OK"

# ── docker-compose.yml ───────────────────────────────────────────────────────────────────────────────
step "dclint (compose-spec schema + all rules)"
# No rule is disabled: the file follows dclint's style rules too (quoted ports, key order, alphabetical
# services), so we run the full rule set and fail on warnings instead of hiding them with -q.
npx --no-install dclint --max-warnings 0 docker-compose.yml
echo "dclint OK"

step "docker-compose 1.29 config -q (copy without the top-level name:, which v1 rejects)"
sed '/^name:/d' docker-compose.yml > "$TMP/docker-compose.yml"
docker-compose -f "$TMP/docker-compose.yml" --project-directory "$ROOT" config -q
echo "docker-compose config OK"

# ── structural checks across all files ───────────────────────────────────────────────────────────────
step "scripts/check-observability-configs.mjs"
node scripts/check-observability-configs.mjs "$ROOT"

# ── tests ────────────────────────────────────────────────────────────────────────────────────────────
if [ "${CI_OBS_SKIP_VITEST:-0}" != 1 ]; then
  step "vitest run test/observability"
  npx --no-install vitest run test/observability
fi

step "observability bundle: all checks passed"
