"""Serve a GGUF model on 127.0.0.1 with llama.cpp's OpenAI-compatible server, in this process.

``xllamacpp`` (the optional extra ``colmeia[local]``) ships llama.cpp's C++ HTTP server as a
prebuilt wheel: no compiler, no separate binary. The server runs on its own native threads; this
module configures it, starts it and says where it listens. It only ever binds 127.0.0.1.

llama.cpp's server cannot be stopped from Python (its destructor waits forever for the HTTP
thread), so a served model lives as long as its process: ``colmeia llm serve`` runs in the
foreground and tests start it as a subprocess.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from colmeia.errors import ConfigurationError
from colmeia.llm.gguf import check_gguf

__all__ = ["HOST", "LocalServer", "start_local_server"]

log = logging.getLogger(__name__)

HOST = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class LocalServer:
    """A running llama.cpp server: where it listens and what it serves."""

    base_url: str
    model: str
    gguf: Path
    ctx: int
    threads: int
    parallel: int
    version: str
    handle: Any  # the xllamacpp.Server; kept so it is not garbage-collected

    def exports(self) -> list[str]:
        """Shell lines that point colmeia at this server."""
        return [
            f"export COLMEIA_LLM_BASE_URL={self.base_url}",
            f"export COLMEIA_LLM_MODEL={self.model}",
            "export COLMEIA_LLM_PROVIDER=llamacpp",
        ]


def _import_xllamacpp() -> Any:
    try:
        import xllamacpp
    except ImportError as exc:
        raise ConfigurationError(
            "serving a local model needs xllamacpp: pip install 'colmeia[local]' "
            f"(it could not be imported: {exc})"
        ) from None
    return xllamacpp


def _check_port(port: int) -> None:
    if not 0 <= port <= 65535:
        raise ConfigurationError(f"--port must be between 0 and 65535, not {port}")
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((HOST, port))
        except OSError as exc:
            raise ConfigurationError(
                f"cannot listen on {HOST}:{port} ({exc.strerror}); choose another --port, or 0 "
                "for any free one"
            ) from None


def start_local_server(
    gguf: Path,
    *,
    port: int = 8080,
    ctx: int = 8192,
    threads: int | None = None,
    parallel: int = 1,
    poll: int = 50,
    model_name: str | None = None,
    verbose: bool = False,
) -> LocalServer:
    """Load ``gguf`` and serve it on 127.0.0.1:``port`` (0 = any free port); returns once ready.

    ``ctx`` is the context window in tokens, shared by the ``parallel`` request slots;
    ``threads`` defaults to every core. ``poll`` (0-100) is how hard llama.cpp's threads
    busy-wait for work between steps: its default 50 suits an idle machine; 0 yields the CPU,
    which is faster when other processes share the cores (a test run beside the model, say).
    llama.cpp's own log goes to stderr only when ``verbose``.
    """
    check_gguf(gguf)
    if ctx < 256:
        raise ConfigurationError(f"--ctx must be at least 256 tokens, not {ctx}")
    if parallel < 1:
        raise ConfigurationError(f"--parallel must be at least 1, not {parallel}")
    n_threads = threads or os.cpu_count() or 1
    if n_threads < 1:
        raise ConfigurationError(f"--threads must be at least 1, not {threads}")
    if not 0 <= poll <= 100:
        raise ConfigurationError(f"--poll must be between 0 and 100, not {poll}")
    _check_port(port)
    xllamacpp = _import_xllamacpp()
    name = model_name or gguf.name.removesuffix(".gguf")
    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.model_alias = {name}
    # 0.2.x has one `hostname`; later releases take a list, `hostnames`.
    if hasattr(params, "hostnames"):
        params.hostnames = [HOST]
    else:
        params.hostname = HOST
    params.port = port
    params.n_ctx = ctx
    params.n_parallel = parallel
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads
    params.cpuparams.poll = poll
    params.cpuparams_batch.poll = poll
    params.use_jinja = True  # the model's own chat template, which carries its tool-call format
    params.verbosity = params.verbosity if verbose else -1
    log.info("loading %s (ctx %d, %d threads, %d slots)", gguf, ctx, n_threads, parallel)
    try:
        server = xllamacpp.Server(params)
    except Exception as exc:  # the binding raises plain RuntimeErrors
        raise ConfigurationError(
            f"llama.cpp could not load {gguf}: {exc}; run with -v to see its log"
        ) from None
    address = str(server.listening_address).rstrip("/")
    return LocalServer(
        base_url=f"{address}/v1",
        model=name,
        gguf=gguf,
        ctx=ctx,
        threads=n_threads,
        parallel=parallel,
        version=str(getattr(xllamacpp, "__version__", "?")),
        handle=server,
    )
