"""Client overhead per model call against the simulated server with zero latency.

Prints one JSON line: CPU microseconds and wall milliseconds per call at concurrency 1 and 64,
for plain chat and for validated structured output. The server runs in another process, so the
CPU figures are the client's own (SDK, HTTP, parsing, validation, accounting).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).parent))
from _sim import sim_process
from colmeia.llm import Message, OpenAIChatModel


class Review(BaseModel):
    """A reviewer's verdict."""

    score: int = Field(ge=0, le=5)
    verdict: Literal["keep", "rewrite"]
    justification: str


async def _measure(
    model: OpenAIChatModel, calls: int, concurrency: int, structured: bool
) -> dict[str, float]:
    sem = asyncio.Semaphore(concurrency)
    messages = [Message.system("Você avalia respostas."), Message.user("A resposta está correta?")]

    async def one() -> None:
        async with sem:
            if structured:
                await model.structured(messages, Review)
            else:
                await model.chat(messages)

    await asyncio.gather(*(one() for _ in range(50)))  # warm up connections
    cpu0, wall0 = time.process_time(), time.perf_counter()
    await asyncio.gather(*(one() for _ in range(calls)))
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return {
        "cpu_us_per_call": cpu / calls * 1e6,
        "wall_ms_per_call": wall / calls * 1e3,
        "calls_per_s": calls / wall,
    }


async def _main(base_url: str) -> dict[str, object]:
    model = OpenAIChatModel(base_url=base_url, model="sim", max_concurrency=64)
    out: dict[str, object] = {"bench": "llm_client"}
    for kind, structured in (("chat", False), ("structured", True)):
        for conc, calls in ((1, 500), (64, 3000)):
            figures = await _measure(model, calls, conc, structured)
            for key, value in figures.items():
                out[f"{kind}_c{conc}_{key}"] = round(value, 2)
    await model.aclose()
    return out


def main() -> None:
    with sim_process("--schema", "--latency-ms", "0") as base_url:
        result = asyncio.run(_main(base_url))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
