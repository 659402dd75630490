# colmeia — everything a newcomer needs: `make demo`, `make test`, `make bench`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV    ?= .venv
PY      := $(VENV)/bin/python
# uv from PATH, else as a module of python3 (installed on first use by the bootstrap below)
UV      ?= $(shell command -v uv 2>/dev/null || echo "python3 -m uv")
STAMP   := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: help install demo serve test lint typecheck pytest bench mutation mutation-changed lock clean uv-bootstrap deploy-check

help:  ## list the targets
	@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

uv-bootstrap:
	@$(UV) --version >/dev/null 2>&1 || { echo "uv not found: installing it with pip"; \
	  python3 -m pip install --quiet --user uv || python3 -m pip install --quiet uv; }

$(STAMP): requirements-dev.lock pyproject.toml | uv-bootstrap
	$(UV) venv --quiet --allow-existing --python 3.11 $(VENV)
	$(UV) pip sync --quiet --compile-bytecode --python $(PY) requirements-dev.lock
	$(UV) pip install --quiet --python $(PY) --no-deps -e .
	@# bytecode once, at install (as pip does by default): where PYTHONDONTWRITEBYTECODE is set,
	@# every process — each CLI run, server and worker the tests start — compiled every module
	@# it imported from source: about half of the 0.9 s CPU of an offline CLI turn
	$(PY) -m compileall -q -j 0 src
	@touch $(STAMP)

install: $(STAMP)  ## create .venv and install the pinned dependencies

demo: $(STAMP)  ## the main job on embedded defaults, with the simulated model
	$(PY) -m colmeia.demo

SERVE_PORT ?= 8080
# the demo tenant's folder under the service's home (COLMEIA_HOME, default .colmeia)
DEMO_TENANT = $(or $(COLMEIA_HOME),.colmeia)/tenants/demo
serve: $(STAMP)  ## the API + web UI on embedded defaults (SQLite, simulated model, no containers)
	@if $(PY) -m colmeia keys list --json | grep -q '"tenant":"demo"'; then \
	  echo "sign in with your key for tenant demo (a new one: colmeia keys create --tenant demo --name me)"; \
	else echo "an API key for tenant demo (sign in to the web UI with it):"; \
	  $(PY) -m colmeia keys create --tenant demo --name "make serve" --admin; fi
	@if [ ! -f "$(DEMO_TENANT)/colmeia.db" ]; then \
	  echo "tenant demo: the shipped laws and the Constitution (collection leis) and a synthetic case registry"; \
	  $(PY) -m colmeia ingest data/laws/lexml/*.csv data/laws/constituicao/lexml/*.csv \
	    --collection leis --store "sqlite:///$(DEMO_TENANT)/colmeia.db" && \
	  $(PY) -m colmeia registry demo --registry "$(DEMO_TENANT)/registry.db" --processes 400 --expedientes 100; \
	fi
	$(PY) -m colmeia serve --simulated --port $(SERVE_PORT)

lint: $(STAMP)  ## ruff lint and format check
	$(VENV)/bin/ruff check src tests bench examples
	$(VENV)/bin/ruff format --check src tests bench examples

typecheck: $(STAMP)  ## mypy --strict on src/
	$(VENV)/bin/mypy

pytest: $(STAMP)  ## the test suite
	$(PY) -m pytest -q -n 2 --dist loadgroup $(PYTEST_ARGS)

test: lint typecheck pytest  ## everything: lint, types, tests

bench: $(STAMP)  ## every benchmark in bench/, one JSON line each
	@for b in bench/*.py; do $(PY) $$b || exit 1; done

MUTATION_ARGS ?=
mutation: $(STAMP)  ## mutation testing of the modules in tests/mutation/modules.toml (slow; not in `make test`; MUTATION_ARGS="--shard 1/8")
	$(PY) tests/mutation/run_mutation.py $(MUTATION_ARGS)

# deploy-check: the image built and run, then the compose stack up with a session through the
# proxy (docs/deploy.md). Needs root with podman, buildah, mmdebstrap (Debian packages); builds
# the base and the stand-in images from Debian's packages when missing. Not part of `make test`.
# RAY=1 adds the Ray profile; EXTRA_CA_DIR: CA certificates the image build must trust.
RAY ?= 0
deploy-check: $(STAMP)  ## build and run the image, bring the compose stack up, smoke it, tear it down (slow)
	@for tool in podman buildah mmdebstrap runc; do command -v $$tool >/dev/null \
	  || { echo "deploy-check needs $$tool (apt-get install podman buildah mmdebstrap runc)"; exit 1; }; done
	source deploy/podman/sandbox.sh && export PATH="$(CURDIR)/$(VENV)/bin:$$PATH" \
	  && { podman image exists localhost/colmeia-base:bookworm || deploy/images/base.sh; } \
	  && BASE=localhost/colmeia-base:bookworm deploy/image-check.sh \
	  && RAY=$(RAY) deploy/smoke.sh

# the modules a change touches (its source or its tests differ from MUTATION_BASE), from mutmut's cache
MUTATION_BASE ?= $(shell git rev-parse --verify --quiet origin/main >/dev/null && echo origin/main || echo HEAD~1)
mutation-changed: $(STAMP)  ## mutation testing of the modules changed since MUTATION_BASE (default origin/main, else HEAD~1)
	$(PY) tests/mutation/run_mutation.py --changed-since $(MUTATION_BASE) $(MUTATION_ARGS)

lock: | uv-bootstrap  ## re-pin dependencies (hashes, no registry addresses)
	$(UV) pip compile --quiet --generate-hashes --python-version 3.11 --extra s3 pyproject.toml -o requirements.lock
	$(UV) pip compile --quiet --generate-hashes --python-version 3.11 --extra ray --extra s3 pyproject.toml -o requirements-ray.lock
	$(UV) pip compile --quiet --generate-hashes --python-version 3.11 pyproject.toml requirements-dev.in -o requirements-dev.lock

clean:  ## remove the virtualenv and caches
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
