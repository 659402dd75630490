#!/usr/bin/env bash
# A stand-in for the public python:3.11-slim image, made from Debian's own packages with
# mmdebstrap (for machines that cannot pull from a container registry). The result is a local
# image, by default `localhost/colmeia-base:bookworm`, that the Dockerfile takes with
#   buildah bud --build-arg BASE=localhost/colmeia-base:bookworm .
# Like the public image it has `python` and `pip` first on PATH (a venv in /opt/python, since
# Debian's own Python refuses system-wide pip installs) and nothing else to speak of.
# Usage: deploy/images/base.sh [IMAGE-NAME]   (as root; needs mmdebstrap and podman)
# Behind a TLS-intercepting proxy, pip inside the image build must trust the proxy's CA: set
# EXTRA_CA_DIR to a folder of PEM *.crt files (often /usr/local/share/ca-certificates) and they
# are added to the image's trust store.
set -euo pipefail
name="${1:-localhost/colmeia-base:bookworm}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# extra packages: ca-certificates (pip reaches the package index over TLS) and procps (`ps`
# when debugging a container); uvicorn itself handles SIGTERM, so no init process is added.
mmdebstrap --quiet --variant=minbase --format=tar \
  --include=python3,python3-venv,ca-certificates,procps \
  --customize-hook='chroot "$1" python3 -m venv /opt/python' \
  --customize-hook='if [ -n "${EXTRA_CA_DIR:-}" ]; then cp "$EXTRA_CA_DIR"/*.crt "$1"/usr/local/share/ca-certificates/ && chroot "$1" update-ca-certificates >/dev/null; fi' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
  bookworm "$work/rootfs.tar"
podman import \
  --change 'ENV PATH=/opt/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["python3"]' \
  "$work/rootfs.tar" "$name" >/dev/null
podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$name"
