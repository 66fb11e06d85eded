# Shared by the live end-to-end scripts (scripts/e2e-observability.sh, scripts/e2e-serve.sh); sourced,
# never run. Provides: stage timing, processes started by `start` and stopped by the EXIT trap, waits,
# literal config rewrites, free loopback ports, the binaries (our collector and Jaeger v2, built with Go
# and cached; Debian's Prometheus and Alertmanager), and Prometheus + Alertmanager started with the
# shipped scrape jobs, rules and routes.
#
#   ROOT=... ; source "$ROOT/scripts/e2e/lib.sh" ; e2e_init <slug> <title>
#   (<slug> names the work directory, <title> starts the final message)
#
# Environment: TLG_E2E_KEEP=1 keeps the work directory (logs, configs). Binaries are cached in
# ${XDG_CACHE_HOME:-$HOME/.cache}/tool-loop-guard/e2e, keyed by the manifest and the Go version.

COLLECTOR_RELEASE=v0.161.0        # builder and every module in collector/builder-config.yaml
JAEGER_MODULE_VERSION=v1.76.0     # github.com/jaegertracing/jaeger (Jaeger v2 lives in its cmd/jaeger)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/tool-loop-guard/e2e"

# Creates the work directory and installs the traps. Sets WORK and LOGS.
e2e_init() {
  E2E_NAME="$2"
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/tlg-$1.XXXXXX")"
  LOGS="$WORK/logs"
  mkdir -p "$LOGS"
  SCRIPT_START=$SECONDS
  STAGE_NAME=""
  STAGE_START=$SECONDS
  TIMINGS=()
  PIDS=()
  NAMES=()
  STOPPED=()
  trap cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# ── stage timing ─────────────────────────────────────────────────────────────────────────────────────
stage() {
  [ -n "$STAGE_NAME" ] && TIMINGS+=("$(printf '%5ss  %s' $((SECONDS - STAGE_START)) "$STAGE_NAME")")
  STAGE_NAME="$1"
  STAGE_START=$SECONDS
  printf '\n== %s\n' "$1"
}

# ── processes: every one is started by start() and stopped by stop_all() / cleanup() ─────────────────
start() {
  local name="$1"; shift
  "$@" >"$LOGS/$name.log" 2>&1 &
  PIDS+=("$!")
  NAMES+=("$name")
}

# The PID of the process start() named NAME (empty when there is none).
pid_of() {
  local i found=""
  for i in "${!NAMES[@]}"; do
    if [ "${NAMES[$i]}" = "$1" ]; then found="${PIDS[$i]}"; fi
  done
  echo "$found"
}

# Sends SIGNAL to one process by its start() name and waits up to 10s for it to exit.
stop_one() {
  local name="$1" signal="${2:-TERM}" pid
  pid="$(pid_of "$name")"
  [ -n "$pid" ] || fail "no process named $name was started"
  kill "-$signal" "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then fail "$name (pid $pid) did not exit within 10s of SIG$signal"; fi
  wait "$pid" 2>/dev/null || true
  STOPPED+=("$pid")
}

stop_all() {
  local i pid
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    pid="${PIDS[$i]}"
    kill -TERM "$pid" 2>/dev/null || continue
  done
  for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
    pid="${PIDS[$i]}"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      echo "${NAMES[$i]} (pid $pid) ignored SIGTERM for 10s; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then echo "process $pid is still running" >&2; return 1; fi
  done
  PIDS=()
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [ "$rc" -ne 0 ] && [ "${#NAMES[@]}" -gt 0 ]; then
    printf '\n== FAILED (exit %s): last lines of each log (%s)\n' "$rc" "$LOGS"
    for name in "${NAMES[@]}"; do
      printf -- '-- %s\n' "$name"
      tail -n 25 "$LOGS/$name.log"
    done
  fi
  stop_all || rc=1
  [ -n "$STAGE_NAME" ] && TIMINGS+=("$(printf '%5ss  %s' $((SECONDS - STAGE_START)) "$STAGE_NAME")")
  printf '\n== stage durations\n'
  printf '%s\n' "${TIMINGS[@]}"
  printf '%5ss  total\n' $((SECONDS - SCRIPT_START))
  if [ "${TLG_E2E_KEEP:-0}" = 1 ]; then echo "work directory kept: $WORK"; else rm -rf "$WORK"; fi
  [ "$rc" -eq 0 ] && echo "$E2E_NAME: all checks passed" || echo "$E2E_NAME: FAILED" >&2
  exit "$rc"
}

fail() { echo "FAIL: $*" >&2; exit 1; }

# Fails, naming it, when a process that start() started has exited without stop_one() stopping it.
check_alive() {
  local j
  for j in "${!PIDS[@]}"; do
    [[ " ${STOPPED[*]} " == *" ${PIDS[$j]} "* ]] && continue
    kill -0 "${PIDS[$j]}" 2>/dev/null || fail "${NAMES[$j]} exited (see its log above) while waiting for $1"
  done
}

# Waits until `curl URL` answers 2xx, or fails naming the process whose log explains why.
wait_http() {
  local what="$1" url="$2" i
  for i in $(seq 1 300); do
    curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null && return 0
    check_alive "$what"
    sleep 0.2
  done
  fail "$what did not answer at $url within 60s"
}

# Waits until something accepts TCP connections on 127.0.0.1:PORT (for listeners without a health URL).
wait_port() {
  local what="$1" port="$2"
  for _ in $(seq 1 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    check_alive "$what"
    sleep 0.2
  done
  fail "$what is not listening on 127.0.0.1:$port within 60s"
}

# Copies IN to OUT replacing each FROM|TO pair literally; fails if a FROM is not in the file, so a change
# in the shipped config cannot silently leave a rewrite undone.
rewrite() {
  local in="$1" out="$2"; shift 2
  local text; text="$(cat "$in")"
  for pair in "$@"; do
    local from="${pair%%|*}" to="${pair#*|}"
    [[ "$text" == *"$from"* ]] || fail "rewrite of $in: '$from' not found"
    text="${text//"$from"/"$to"}"
  done
  printf '%s\n' "$text" >"$out"
}

# Reads N free ports chosen by the kernel into the array P, all at once so none repeats; nothing binds
# them until its program does.
free_ports() {
  local n="$1"
  read -r -a P <<<"$(node -e '
    const net = require("node:net");
    const servers = Array.from({ length: Number(process.argv[1]) }, () => net.createServer().listen(0, "127.0.0.1"));
    Promise.all(servers.map((s) => new Promise((r) => s.on("listening", r)))).then(() => {
      console.log(servers.map((s) => s.address().port).join(" "));
      servers.forEach((s) => s.close());
    });
  ' "$n")"
  [ "${#P[@]}" -eq "$n" ] || fail "could not reserve $n free ports on 127.0.0.1"
}

# Every listening socket of every process we started must be on 127.0.0.1.
check_loopback_listeners() {
  local listeners mine bad i
  listeners="$(ss -H -ltnup)"
  for i in "${!PIDS[@]}"; do
    mine="$(grep -E "pid=${PIDS[$i]}," <<<"$listeners" || true)"
    [ -n "$mine" ] || fail "${NAMES[$i]} (pid ${PIDS[$i]}) listens on nothing"
    bad="$(awk '{ print $5 }' <<<"$mine" | grep -v -E '^127\.0\.0\.1:[0-9]+$' || true)"
    [ -z "$bad" ] || fail "${NAMES[$i]} listens outside 127.0.0.1: $bad"
  done
  echo "every listener is on 127.0.0.1 ($(grep -c -E "pid=($(IFS='|'; echo "${PIDS[*]}"))," <<<"$listeners") sockets)"
}

# After stop_all: none of the ports in P may still be open.
check_ports_closed() {
  local still
  still="$(ss -H -ltn | awk '{ print $4 }' | grep -E ":($(IFS='|'; echo "${P[*]}"))$" || true)"
  [ -z "$still" ] || fail "still listening after every process stopped: $still"
  echo "all processes stopped; none of the ${#P[@]} ports is still open"
}

# ── binaries ─────────────────────────────────────────────────────────────────────────────────────────
# Builds, or reuses from $CACHE, the builder, our collector and Jaeger; finds Prometheus and
# Alertmanager. Sets OTELCOL, JAEGER, PROMETHEUS, ALERTMANAGER.
build_binaries() {
  local go_version builder_dir manifest_key otelcol_dir jaeger_dir jaeger_src t
  command -v go >/dev/null || fail "Go is needed to build the collector and Jaeger (https://go.dev/dl/)"
  PROMETHEUS="$(command -v prometheus)" || fail "prometheus is missing (apt-get install prometheus; scripts/ci-observability.sh does it)"
  ALERTMANAGER="$(command -v prometheus-alertmanager || command -v alertmanager)" || fail "alertmanager is missing (apt-get install prometheus-alertmanager)"
  go_version="$(go env GOVERSION)"
  echo "$go_version; GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)"

  builder_dir="$CACHE/builder-$COLLECTOR_RELEASE-$go_version"
  if [ ! -x "$builder_dir/builder" ]; then
    t=$SECONDS
    GOBIN="$builder_dir" go install "go.opentelemetry.io/collector/cmd/builder@$COLLECTOR_RELEASE"
    echo "built builder $COLLECTOR_RELEASE in $((SECONDS - t))s"
  else
    echo "reusing $builder_dir/builder"
  fi

  # The cache key ignores comments and blank lines: only what the builder reads can change the binary.
  manifest_key="$(grep -v -E '^[[:space:]]*(#|$)' "$ROOT/collector/builder-config.yaml" | sha256sum | cut -c1-16)"
  otelcol_dir="$CACHE/otelcol-$manifest_key-$go_version"
  OTELCOL="$otelcol_dir/_build/otelcol-tool-loop-guard"
  if [ ! -x "$OTELCOL" ]; then
    t=$SECONDS
    rm -rf "$otelcol_dir.tmp" && mkdir -p "$otelcol_dir.tmp"
    # output_path in the manifest is relative to the working directory: build inside the cache.
    (cd "$otelcol_dir.tmp" && "$builder_dir/builder" --config="$ROOT/collector/builder-config.yaml" --ldflags='-s -w') >"$LOGS/otelcol-build.log" 2>&1 \
      || { tail -n 40 "$LOGS/otelcol-build.log"; fail "collector build failed"; }
    rm -rf "$otelcol_dir" && mv "$otelcol_dir.tmp" "$otelcol_dir"
    echo "built $("$OTELCOL" --version) in $((SECONDS - t))s"
  else
    echo "reusing $OTELCOL ($("$OTELCOL" --version))"
  fi

  jaeger_dir="$CACHE/jaeger-$JAEGER_MODULE_VERSION-$go_version"
  JAEGER="$jaeger_dir/jaeger"
  if [ ! -x "$JAEGER" ]; then
    t=$SECONDS
    # `go install …@version` refuses modules whose go.mod has replace directives (Jaeger's has one), so
    # build inside the downloaded module: its own go.mod, go.sum and replace apply, as in Jaeger's release.
    jaeger_src="$(go mod download -json "github.com/jaegertracing/jaeger@$JAEGER_MODULE_VERSION" | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).Dir))')"
    mkdir -p "$jaeger_dir"
    (cd "$jaeger_src" && go build -ldflags='-s -w' -o "$JAEGER.tmp" ./cmd/jaeger) >"$LOGS/jaeger-build.log" 2>&1 \
      || { tail -n 40 "$LOGS/jaeger-build.log"; fail "jaeger build failed"; }
    mv "$JAEGER.tmp" "$JAEGER"
    echo "built jaeger $JAEGER_MODULE_VERSION in $((SECONDS - t))s"
  else
    echo "reusing $JAEGER"
  fi
  "$PROMETHEUS" --version 2>&1 | sed -n 1p
  "$ALERTMANAGER" --version 2>&1 | sed -n 1p
}

# Builds dist/ when it is missing or older than a source file (the CLI and the demo run from it).
ensure_built() {
  if [ ! -f "$ROOT/dist/esm/cli/main.js" ] || [ ! -f "$ROOT/dist/esm/cli/demo.js" ] \
    || [ -n "$(find "$ROOT/src" -name '*.ts' -newer "$ROOT/dist/esm/cli/main.js" -print -quit)" ]; then
    (cd "$ROOT" && npm run -s build)
  fi
}

# ── programs ─────────────────────────────────────────────────────────────────────────────────────────
# Jaeger v2, in memory, everything on 127.0.0.1: NAME OTLP_GRPC_PORT QUERY_HTTP_PORT QUERY_GRPC_PORT.
start_jaeger() {
  start "$1" env JAEGER_OTLP_GRPC_PORT="$2" JAEGER_QUERY_HTTP_PORT="$3" JAEGER_QUERY_GRPC_PORT="$4" \
    "$JAEGER" --config="$ROOT/scripts/e2e/jaeger.yaml"
}

# Alertmanager with the shipped routes and receivers (webhook URLs pointed at the local receiver, the
# first notification after 1s instead of 30s) and Prometheus with the shipped scrape jobs and rule files
# (read from collector/prometheus/rules), loopback targets, and 1s scrape/evaluation instead of 15s.
#   start_prometheus_alertmanager PROM_PORT AM_PORT WEBHOOK_PORT COLLECTOR_PROMETHEUS_EXPORTER_PORT
start_prometheus_alertmanager() {
  local prom_port="$1" am_port="$2" webhook_port="$3" collector_prom_port="$4"
  rewrite "$ROOT/collector/alertmanager/alertmanager.yml" "$WORK/alertmanager.yml" \
    "http://alert-webhook:8080/|http://127.0.0.1:$webhook_port/" \
    "group_wait: 30s|group_wait: 1s" "group_interval: 5m|group_interval: 5s"
  start alertmanager "$ALERTMANAGER" --config.file="$WORK/alertmanager.yml" --storage.path="$WORK/alertmanager-data" \
    --web.listen-address="127.0.0.1:$am_port" --cluster.listen-address=
  rewrite "$ROOT/collector/prometheus/prometheus.yml" "$WORK/prometheus.yml" \
    "scrape_interval: 15s|scrape_interval: 1s" "evaluation_interval: 15s|evaluation_interval: 1s" \
    "/etc/prometheus/rules/|$ROOT/collector/prometheus/rules/" \
    "otel-collector:8889|127.0.0.1:$collector_prom_port" "alertmanager:9093|127.0.0.1:$am_port" "localhost:9090|127.0.0.1:$prom_port"
  start prometheus "$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prometheus-data" \
    --web.listen-address="127.0.0.1:$prom_port"
}
