#!/usr/bin/env bash
# The compose stack up and used, then torn down: PostgreSQL, Redis, two service replicas behind
# the nginx proxy, Prometheus with the alert rules (and, with RAY=1, a Ray head, two Ray workers
# and a service whose moderation jobs run on them), started with podman-compose from
# compose.yaml plus deploy/compose.loopback.yaml (every container on the host's loopback).
# A scripted session goes through the proxy (deploy/smoke_session.py: upload → ingest job →
# search → ask → moderation job), both replicas are shown to have served it, Prometheus is
# shown scraping them and evaluating every dashboard query, and the stack is taken down with
# its volumes whatever happens.
#   deploy/smoke.sh            # images: local stand-ins from Debian's packages (deploy/images)
#   RAY=1 deploy/smoke.sh      # also the Ray profile
# Needs podman, buildah, mmdebstrap and podman-compose >= 1.1 (the dev dependencies; Debian 12's
# 1.0.3 knows no profiles). Inside a sandbox, source deploy/podman/sandbox.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
PROJECT="${PROJECT:-colmeia-smoke}"
RAY="${RAY:-0}"
COMPOSE_BIN="${PODMAN_COMPOSE:-$(command -v podman-compose || echo .venv/bin/podman-compose)}"
[[ -x "$COMPOSE_BIN" ]] || COMPOSE_BIN=.venv/bin/podman-compose
PY="${PYTHON:-python3}"
compose_version="$("$COMPOSE_BIN" version 2>/dev/null | sed -n 's/^podman-composer* version *//p' | head -n1)"
if [[ -z "$compose_version" || "$compose_version" == 0.* || "$compose_version" == 1.0.* ]]; then
  echo "podman-compose >= 1.1 is needed (found ${compose_version:-none} at $COMPOSE_BIN: no profiles):" \
    "it is a dev dependency (make install), or pip install 'podman-compose>=1.1'" >&2
  exit 1
fi

export COLMEIA_BASE_IMAGE="${COLMEIA_BASE_IMAGE:-localhost/colmeia-base:bookworm}"
export COLMEIA_POSTGRES_IMAGE="${COLMEIA_POSTGRES_IMAGE:-localhost/colmeia-postgres:debian}"
export COLMEIA_REDIS_IMAGE="${COLMEIA_REDIS_IMAGE:-localhost/colmeia-redis:debian}"
export COLMEIA_PROXY_IMAGE="${COLMEIA_PROXY_IMAGE:-localhost/colmeia-nginx:debian}"
export COLMEIA_PROMETHEUS_IMAGE="${COLMEIA_PROMETHEUS_IMAGE:-localhost/colmeia-prometheus:debian}"

profiles=(--profile replicas --profile monitoring)
[[ "$RAY" == 1 ]] && profiles+=(--profile ray)
compose() {
  "$COMPOSE_BIN" -p "$PROJECT" -f compose.yaml -f deploy/compose.loopback.yaml "${profiles[@]}" "$@"
}
say() { printf '== %s\n' "$*"; }

for port in 25432 26379 28080 28081 28082 28090 29090 $([[ "$RAY" == 1 ]] && echo 26380 28085); do
  if "$PY" -c "import socket,sys; s=socket.socket(); sys.exit(s.connect_ex(('127.0.0.1', $port)) != 0)"; then
    echo "port 127.0.0.1:$port is taken: stop what listens there (or another smoke run)" >&2
    exit 1
  fi
done

say "images"
podman image exists "$COLMEIA_BASE_IMAGE" || deploy/images/base.sh "$COLMEIA_BASE_IMAGE"
for name in postgres redis nginx prometheus; do
  podman image exists "localhost/colmeia-$name:debian" || BASE="$COLMEIA_BASE_IMAGE" deploy/images/build.sh "$name"
done
build() {  # tag, lock
  buildah bud --quiet --layers --format docker --isolation "${ISOLATION:-chroot}" \
    --network "${BUILD_NET:-host}" --build-arg BASE="$COLMEIA_BASE_IMAGE" --build-arg LOCK="$2" \
    -t "$1" . >/dev/null
}
build localhost/colmeia:latest requirements.lock
[[ "$RAY" == 1 ]] && build localhost/colmeia-ray:latest requirements-ray.lock
podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -E '^localhost/colmeia' | sort

teardown() {
  say "down"
  compose down -v >/dev/null 2>&1 || true
}
trap teardown EXIT

wait_http() {  # url, seconds
  "$PY" - "$1" "$2" <<'EOF'
import sys, time, urllib.request
url, limit = sys.argv[1], float(sys.argv[2])
deadline = time.monotonic() + limit
while True:
    try:
        if urllib.request.urlopen(url, timeout=3).status == 200:
            break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit(f"{url} did not answer 200 within {limit:.0f} s")
    time.sleep(1)
EOF
}

say "up: databases first (podman < 4.6 cannot wait for a health check)"
started=$(date +%s)
up() {
  if ! compose up -d "$@" >"${TMPDIR:-/tmp}/$PROJECT-up.log" 2>&1; then
    tail -20 "${TMPDIR:-/tmp}/$PROJECT-up.log" >&2
    exit 1
  fi
}
up postgres redis
for _ in $(seq 60); do
  podman exec "${PROJECT}_postgres_1" pg_isready -q -h 127.0.0.1 -p 25432 2>/dev/null && break
  sleep 1
done
podman exec "${PROJECT}_redis_1" redis-cli -h 127.0.0.1 -p 26379 ping
say "up: services, proxy, monitoring$([[ "$RAY" == 1 ]] && echo ', Ray')"
up
for port in 28080 28081 28082; do wait_http "http://127.0.0.1:$port/readyz" 180; done
wait_http "http://127.0.0.1:28090/healthz" 60
echo "stack up in $(( $(date +%s) - started )) s"
podman ps --filter "label=io.podman.compose.project=$PROJECT" --format '{{.Names}}\t{{.Status}}'

say "health checks (podman healthcheck run)"
for c in $(podman ps --filter "label=io.podman.compose.project=$PROJECT" --format '{{.Names}}'); do
  if podman healthcheck run "$c" >/dev/null 2>&1; then echo "$c healthy"; fi
done

say "a key, then the session through the proxy (127.0.0.1:28090)"
KEY=$(podman exec "${PROJECT}_colmeia-replica_1" colmeia keys create --tenant smoke --name smoke \
  --admin --json | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["key"])')
"$PY" deploy/smoke_session.py --url http://127.0.0.1:28090 --key "$KEY" --moderation

say "both replicas served the session"
for port in 28081 28082; do
  "$PY" - "$port" <<'EOF'
import sys, urllib.request
port = sys.argv[1]
text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
served = sum(float(l.split()[-1]) for l in text.splitlines()
             if l.startswith("colmeia_http_requests_total{") and 'route="/metrics"' not in l)
jobs = sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith("colmeia_jobs_total{"))
print(f"replica :{port}: {served:.0f} requests, {jobs:.0f} jobs ended")
if served == 0:
    sys.exit(f"replica :{port} served nothing: the proxy does not spread the load")
EOF
done

say "Prometheus (127.0.0.1:29090): targets and the dashboard's queries"
wait_http "http://127.0.0.1:29090/-/ready" 60
sleep 8  # one scrape after the session
"$PY" - <<'EOF'
import json, sys, urllib.parse, urllib.request
def query(expr):
    url = "http://127.0.0.1:29090/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    return json.load(urllib.request.urlopen(url, timeout=10))
up = query('up{job="colmeia"}')["data"]["result"]
print("targets up:", sorted(f"{r['metric']['instance']}={r['value'][1]}" for r in up))
if len(up) != 3 or any(r["value"][1] != "1" for r in up):
    sys.exit("Prometheus does not see the three service instances up")
board = json.load(open("deploy/monitoring/grafana/dashboards/colmeia.json"))
exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
with_data = 0
for expr in exprs:
    answer = query(expr)
    if answer["status"] != "success":
        sys.exit(f"dashboard query failed: {expr}: {answer}")
    with_data += bool(answer["data"]["result"])
print(f"dashboard: {len(exprs)} queries evaluated, {with_data} with data")
rules = json.load(urllib.request.urlopen("http://127.0.0.1:29090/api/v1/rules", timeout=10))
names = [r["name"] for g in rules["data"]["groups"] for r in g["rules"]]
print(f"alert rules loaded: {len(names)} ({', '.join(names)})")
EOF

if [[ "$RAY" == 1 ]]; then
  say "Ray profile: a moderation job on the Ray workers (service on 127.0.0.1:28085)"
  wait_http "http://127.0.0.1:28085/readyz" 180
  podman exec "${PROJECT}_ray-head_1" ray status 2>/dev/null | grep -E "node_|Active|CPU" | head -6 || true
  "$PY" deploy/smoke_session.py --url http://127.0.0.1:28085 --key "$KEY" --moderation
fi
say "smoke passed"
