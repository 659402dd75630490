"""Moderation on Ray: the same moderator per record, run in Ray workers.

:func:`ray_moderation` gives the function :meth:`PreparedBatch.run` calls per record; the batch
keeps writing the results file itself, so resume, one line per key and the manifest work as in
a local run. Each worker builds its own moderator (and model clients) from the configuration,
once, and runs up to ``per_worker`` items at a time.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.records import ModerationItem
from colmeia.apps.moderation.roles import ModerationConfig
from colmeia.config import LLMSettings
from colmeia.executors import RayPool

__all__ = ["WorkerModerator", "ray_moderation"]


class WorkerModerator:
    """What a Ray worker holds: a moderator built from the configuration, and its clients."""

    def __init__(
        self, config: ModerationConfig, llm: LLMSettings | None, prompts: Path | None = None
    ) -> None:
        # Imported here: the batch module (and LangGraph under it) loads in the worker only.
        from colmeia.apps.moderation.batch import moderator_from_config
        from colmeia.llm.prompts import use_prompts_dir

        if prompts is not None:  # the driver's prompts folder, so workers render the same text
            use_prompts_dir(prompts)
        self.moderator: Moderator = moderator_from_config(config, llm)

    async def moderate(self, item: ModerationItem) -> dict[str, Any]:
        return await self.moderator.moderate(item)

    async def aclose(self) -> None:
        for client in {id(m.model): m.model for m in self.moderator.models.values()}.values():
            close = getattr(client, "aclose", None)
            if close is not None:
                await close()


def _worker(
    config: ModerationConfig, llm: LLMSettings | None, prompts: Path | None
) -> WorkerModerator:
    return WorkerModerator(config, llm, prompts)


@contextlib.asynccontextmanager
async def ray_moderation(
    config: ModerationConfig,
    llm: LLMSettings | None = None,
    *,
    workers: int = 2,
    per_worker: int = 16,
    address: str | None = None,
    num_cpus: int | None = None,
    background_start: bool = False,
) -> AsyncIterator[tuple[Callable[[ModerationItem], Awaitable[dict[str, Any]]], RayPool]]:
    """A per-record moderation function backed by ``workers`` Ray actors, and the pool.

    ``address``: ``None`` starts a local Ray on 127.0.0.1 for this run; ``auto`` or
    ``ray://HOST:PORT`` use a running cluster (joined off the event loop with
    ``background_start``, for a service that must keep answering meanwhile).
    """
    from colmeia.llm.prompts import active_prompts

    active = active_prompts()  # a prompts folder chosen in this process (--prompts) goes along
    pool = RayPool(
        functools.partial(_worker, config, llm, active.path if active else None),
        method="moderate",
        workers=workers,
        per_worker=per_worker,
        address=address,
        num_cpus=num_cpus,
        background_start=background_start,
    )
    async with pool:
        yield pool.call, pool
