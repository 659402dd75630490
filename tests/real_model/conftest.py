"""The real-model tier: every test here talks to one `colmeia llm serve` on a small GGUF.

The ``local_llm`` fixture starts the server once per test session (and worker); every module here
sets ``pytestmark = REAL_MODEL`` (from ``tests/local_model.py``): one xdist group, ``real_model``,
so that only one worker loads the model.
They skip with a one-line reason when xllamacpp or the weights are missing
(see ``tests/local_model.py``). Assert protocol and invariants, never a model's wording.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from local_model import LocalModel, gguf_or_skip_reason, running_local_model, start_local_model


@pytest.fixture(scope="session")
def local_llm() -> Iterator[LocalModel]:
    """A real model served by llama.cpp on 127.0.0.1 (``.base_url``, ``.model``, ``.env()``)."""
    running = running_local_model()
    if running is not None:
        yield running
        return
    gguf, reason = gguf_or_skip_reason()
    if gguf is None:
        pytest.skip(reason)
    # Two slots: the moderation reviewers ask at once; each slot keeps a 4096-token window.
    # poll=0: the other pytest worker shares the two cores, and llama.cpp's busy-waiting
    # threads would take its CPU (seen: 0.4 tokens/s at load 13 with the default poll).
    # One thread: llama.cpp syncs its threads at every layer, so a thread that loses its core
    # to the other worker stalls the rest (seen: a 67 s test took 206 s with three workers);
    # one thread keeps to one core and leaves the other to the worker beside it.
    server = start_local_model(gguf, parallel=2, poll=0, threads=1)
    try:
        yield server
    finally:
        server.stop()
