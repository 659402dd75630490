#!/usr/bin/env bash
# Build the service image and prove it runs: the health check passes, the process is not root,
# and a scripted session (upload → ingest job → search → ask → moderation job) succeeds. The
# container has no network but its own loopback (--network none): the session runs inside it,
# so nothing leaves 127.0.0.1. Uses podman/buildah; BASE picks the base image (default: the
# public python:3.11-slim; without a registry, deploy/images/base.sh makes a local one).
#   deploy/image-check.sh                         # build + run + session
#   BASE=localhost/colmeia-base:bookworm deploy/image-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE="${IMAGE:-localhost/colmeia:latest}"
BASE="${BASE:-python:3.11-slim}"
NAME="colmeia-image-check-$$"
# the build reaches the package index; host networking where the sandbox has no bridge for builds
BUILD_NET="${BUILD_NET:-host}"
ISOLATION="${ISOLATION:-chroot}"

echo "== build $IMAGE from $BASE"
start=$(date +%s)
buildah bud --quiet --layers --format docker --isolation "$ISOLATION" --network "$BUILD_NET" \
  --build-arg BASE="$BASE" -t "$IMAGE" . >/dev/null
echo "built in $(( $(date +%s) - start )) s; size: $(podman image inspect "$IMAGE" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}')"
podman image inspect "$IMAGE" --format '{{json .}}' | python3 -c '
import json, sys
image = json.load(sys.stdin)
image = image[0] if isinstance(image, list) else image
check = image.get("Healthcheck") or image.get("Config", {}).get("Healthcheck") or {}
print("user:", image["Config"].get("User") or "root", "| healthcheck:", " ".join(check.get("Test", []))[-70:] or "none")'


cleanup() { podman rm -f "$NAME" >/dev/null 2>&1 || true; }
trap cleanup EXIT
echo "== run (network: none; the simulated model in-process)"
podman run -d --name "$NAME" --network none "$IMAGE" serve --host 0.0.0.0 --port 8080 --simulated >/dev/null
for _ in $(seq 60); do
  if podman healthcheck run "$NAME" >/dev/null 2>&1; then break; fi
  sleep 1
done
podman healthcheck run "$NAME" >/dev/null && echo "health check: healthy ($(podman inspect "$NAME" --format '{{.State.Health.Status}}' 2>/dev/null || echo 'no status'))"
echo "uid in the container: $(podman exec "$NAME" id -u) ($(podman exec "$NAME" id -un))"
KEY=$(podman exec "$NAME" colmeia keys create --tenant smoke --name image-check --admin --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
podman exec -i "$NAME" python - --url http://127.0.0.1:8080 --key "$KEY" --moderation \
  < deploy/smoke_session.py
echo "== image check passed"
