"""A real model for tests: `colmeia llm serve` on a small GGUF, started as a subprocess.

The weights come from ``COLMEIA_TEST_GGUF`` (any GGUF file) or, by default, the packaged
Qwen2.5-Coder-0.5B-Instruct that the dev lock installs (joined and verified by
``colmeia.llm.gguf``). Nothing is downloaded. ``COLMEIA_TEST_REAL_MODEL=0`` skips the tier. While developing,
``COLMEIA_TEST_LLM_BASE_URL`` (and ``COLMEIA_TEST_LLM_MODEL``) point the tier at a
`colmeia llm serve` already running instead of starting one.

Use the ``local_llm`` fixture of ``tests/real_model/conftest.py``; this module holds what it
needs, so other folders can start their own server the same way.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from colmeia.errors import ConfigurationError

__all__ = [
    "REAL_MODEL",
    "LocalModel",
    "gguf_or_skip_reason",
    "running_local_model",
    "start_local_model",
]

#: Marks for every real-model test module (``pytestmark = REAL_MODEL``): one xdist group, so
#: only one worker starts a server (the Makefile runs ``pytest -n 2 --dist loadgroup``).
#: A busy 2-core machine makes the 0.5B ten times slower: generous per-test timeouts.
REAL_MODEL = [pytest.mark.xdist_group("real_model"), pytest.mark.slow, pytest.mark.timeout(1200)]

#: Real-model runs that take many minutes on two cores (a 20-item two-run experiment, a
#: literature review read by the model): outside `make test`, whose CI run must stay short;
#: `COLMEIA_REAL_MODEL_LONG=1 make pytest PYTEST_ARGS=tests/real_model` runs them.
LONG = pytest.mark.skipif(
    os.environ.get("COLMEIA_REAL_MODEL_LONG", "").strip() not in {"1", "true", "yes"},
    reason="a long real-model run (minutes on 2 cores): set COLMEIA_REAL_MODEL_LONG=1",
)

#: How long loading may take (a cold disk cache and a busy machine are slow).
START_TIMEOUT_S = 180.0


def gguf_or_skip_reason() -> tuple[Path | None, str]:
    """The GGUF to serve, or ``(None, why the real-model tests skip)``."""
    if os.environ.get("COLMEIA_TEST_REAL_MODEL", "1").strip() in {"0", "false", "no"}:
        return None, "real-model tests turned off (COLMEIA_TEST_REAL_MODEL=0)"
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        return None, "xllamacpp is not installed (pip install 'colmeia[local]')"
    explicit = os.environ.get("COLMEIA_TEST_GGUF", "").strip()
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            return None, f"COLMEIA_TEST_GGUF={explicit} is not a file"
        return path, ""
    from colmeia.llm.gguf import packaged_gguf

    try:
        return packaged_gguf(), ""
    except ConfigurationError as exc:
        return None, f"no local model weights: {exc}"


@dataclass
class LocalModel:
    """A running `colmeia llm serve`: its address, model name and the environment to use it."""

    base_url: str
    model: str
    gguf: Path
    process: subprocess.Popen[str] | None
    startup_s: float
    log: list[str] = field(default_factory=list)
    pumps: list[threading.Thread] = field(default_factory=list)

    @property
    def provider(self) -> str:
        return "llamacpp"

    def env(self, **extra: str) -> dict[str, str]:
        """This process's environment without other COLMEIA_LLM_* settings, pointing here."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_LLM_")}
        env.update(
            COLMEIA_LLM_BASE_URL=self.base_url,
            COLMEIA_LLM_MODEL=self.model,
            COLMEIA_LLM_PROVIDER=self.provider,
        )
        env.update(extra)
        return env

    def stop(self) -> None:
        if self.process is None:  # not ours to stop
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        for pump in self.pumps:
            pump.join(timeout=5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def running_local_model() -> LocalModel | None:
    """The server named by ``COLMEIA_TEST_LLM_BASE_URL``, if set (the tier then starts none)."""
    url = os.environ.get("COLMEIA_TEST_LLM_BASE_URL", "").strip()
    if not url:
        return None
    model = os.environ.get("COLMEIA_TEST_LLM_MODEL", "").strip() or "local"
    return LocalModel(base_url=url, model=model, gguf=Path(), process=None, startup_s=0.0)


def start_local_model(
    gguf: Path,
    *,
    ctx: int = 8192,
    parallel: int = 1,
    threads: int | None = None,
    poll: int = 50,
) -> LocalModel:
    """Start ``colmeia llm serve`` on a free 127.0.0.1 port; returns once it prints its exports."""
    cmd = [sys.executable, "-m", "colmeia", "llm", "serve", "--gguf", str(gguf), "--port", "0"]
    cmd += ["--ctx", str(ctx), "--parallel", str(parallel), "--poll", str(poll)]
    if threads:
        cmd += ["--threads", str(threads)]
    started = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    lines: queue.Queue[str | None] = queue.Queue()
    errors: list[str] = []

    def pump_stdout() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def pump_stderr() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            errors.append(line.rstrip("\n"))

    pumps = [
        threading.Thread(target=pump_stdout, daemon=True),
        threading.Thread(target=pump_stderr, daemon=True),
    ]
    for pump in pumps:
        pump.start()
    exports: dict[str, str] = {}
    deadline = started + START_TIMEOUT_S
    while len(exports) < 3:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.perf_counter()))
        except queue.Empty:
            line = None
        if line is None:
            LocalModel("", "", gguf, proc, 0.0, errors, pumps).stop()
            raise RuntimeError(
                f"`colmeia llm serve` did not start within {START_TIMEOUT_S:.0f}s "
                f"(exit {proc.returncode}): " + " | ".join(errors[-5:])
            )
        if line.startswith("export COLMEIA_LLM_"):
            key, _, value = line.removeprefix("export ").partition("=")
            exports[key] = value
    return LocalModel(
        base_url=exports["COLMEIA_LLM_BASE_URL"],
        model=exports["COLMEIA_LLM_MODEL"],
        gguf=gguf,
        process=proc,
        startup_s=time.perf_counter() - started,
        log=errors,
        pumps=pumps,
    )


def told(result: Any) -> str:
    """A turn's result as one JSON string, for an assertion's message: what a real model did
    (its handoffs and tool calls with their arguments) is what a failure must show whole —
    pytest cuts a dict's repr short, not a string."""
    import json

    return json.dumps(result.as_dict(), ensure_ascii=False, default=str)
