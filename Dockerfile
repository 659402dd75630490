# colmeia service image: the API + web UI (`colmeia serve`). Build: docker build -t colmeia .
# Dependencies come from the hash-pinned lock file; nothing is downloaded at run time.
# BASE: any image with Python 3.11 whose `pip` and `python` come first on PATH; without a
# registry, deploy/images/base.sh makes one from Debian's packages (docs/deploy.md):
#   buildah bud --build-arg BASE=localhost/colmeia-base:bookworm -t colmeia .
ARG BASE=python:3.11-slim
FROM ${BASE} AS base

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    COLMEIA_HOME=/data

WORKDIR /app
# requirements-ray.lock adds Ray for `--engine ray` and the Ray workers (compose profile ray)
ARG LOCK=requirements.lock
COPY ${LOCK} ./
RUN pip install --require-hashes -r ${LOCK}

COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install --no-deps . \
    && useradd --system --uid 10001 --home-dir /data colmeia \
    && mkdir -p /data && chown colmeia /data

USER colmeia
VOLUME ["/data"]
EXPOSE 8080

# /readyz: the database, the rate-limit backend and the job worker answer
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8080/readyz', timeout=4).status == 200 else 1)"]

ENTRYPOINT ["colmeia"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
