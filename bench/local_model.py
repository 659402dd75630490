"""Speed of a local model served by `colmeia llm serve` (llama.cpp via xllamacpp) on this machine.

Serves the packaged Qwen2.5-Coder-0.5B-Instruct (``--gguf`` for another file or the packaged
1.5B), then asks the same questions a few times at temperature 0 and reads llama.cpp's own
timings. Prints ONE JSON line: startup seconds, prompt and generation tokens per second
(median), what colmeia's client measured (``model.speed``), the xllamacpp version, and the load
average before and after (the machine's 2 cores are shared, and the figures move with the load).

    .venv/bin/python bench/local_model.py [--gguf qwen2.5-coder-1.5b-instruct] [--calls 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the one way the tests start a local model

PROMPT = (
    "Explique em um parágrafo o que é a Lei Geral de Proteção de Dados (LGPD) e a quem ela se "
    "aplica. "
) * 6


async def _measure(base_url: str, model_name: str, calls: int) -> dict[str, Any]:
    from colmeia.llm import Message, OpenAIChatModel
    from colmeia.llm.base import Usage
    from colmeia.llm.http import EndpointClient

    raw = EndpointClient(base_url, {}, model=model_name, timeout=900)
    prompt_tps: list[float] = []
    gen_tps: list[float] = []
    try:
        for i in range(calls):
            body = {
                "model": model_name,
                "messages": [{"role": "user", "content": f"{PROMPT} ({i})"}],
                "max_tokens": 64,
                "temperature": 0,
            }
            reply = await raw.post(
                "/chat/completions", body, usage=Usage(), deadline_at=1e12, deadline_s=900
            )
            timings = reply.data.get("timings") or {}
            prompt_tps.append(float(timings.get("prompt_per_second") or 0))
            gen_tps.append(float(timings.get("predicted_per_second") or 0))
    finally:
        await raw.aclose()
    async with OpenAIChatModel(base_url=base_url, model=model_name, provider="llamacpp") as m:
        await m.chat([Message.user(PROMPT)], max_tokens=64, temperature=0)
        measured = m.speed.as_dict()
    return {
        "prompt_tokens_per_s": round(statistics.median(prompt_tps), 1),
        "gen_tokens_per_s": round(statistics.median(gen_tps), 1),
        "client_measured": measured,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", default=None, help="file or packaged model name")
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    out: dict[str, Any] = {"bench": "local_model", "load_before": os.getloadavg()}
    from colmeia.llm.gguf import resolve_gguf
    from local_model import gguf_or_skip_reason, start_local_model

    if args.gguf:
        gguf = resolve_gguf(args.gguf)
    else:
        found, reason = gguf_or_skip_reason()
        if found is None:
            out["skipped"] = reason
            print(json.dumps(out))
            return
        gguf = found
    import xllamacpp

    server = start_local_model(gguf)
    try:
        out.update(
            model=server.model,
            xllamacpp=getattr(xllamacpp, "__version__", "?"),
            threads=os.cpu_count(),
            startup_s=round(server.startup_s, 2),
        )
        out.update(asyncio.run(_measure(server.base_url, server.model, args.calls)))
    finally:
        server.stop()
    out["load_after"] = os.getloadavg()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
