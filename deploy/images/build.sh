#!/usr/bin/env bash
# Build the local stand-ins for the public images compose.yaml uses (PostgreSQL, Redis, nginx,
# Prometheus) from Debian's packages, on the base deploy/images/base.sh made. Each is tagged
# localhost/colmeia-<name>:debian; deploy/smoke.sh points compose at them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
BASE="${BASE:-localhost/colmeia-base:bookworm}"
for name in ${*:-postgres redis nginx prometheus}; do
  buildah bud --quiet --layers --format docker --isolation "${ISOLATION:-chroot}" \
    --network "${BUILD_NET:-host}" --build-arg BASE="$BASE" \
    -f "$here/$name.Containerfile" -t "localhost/colmeia-$name:debian" "$here" >/dev/null
  echo "built localhost/colmeia-$name:debian ($(podman image inspect "localhost/colmeia-$name:debian" --format '{{.Size}}' | awk '{printf "%.0f MB", $1/1e6}'))"
done
