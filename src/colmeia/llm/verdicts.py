"""Verdicts learned about an endpoint (server + model), kept across processes.

A process that learns "this model writes its tool calls as text" or "this server ignores
``tool_choice=required``" pays for the lesson with a slow call — on a small local model, ten
seconds of prose. Every new process (each ``colmeia agent run``) used to pay again. The
verdicts are kept in a small JSON file keyed by base URL and model, and expire after
:data:`~colmeia.llm.capabilities.REVISIT_S` like the in-process ones, so a changed server is
tried again.

The file is ``$COLMEIA_CACHE_DIR/endpoints.json``, else ``$XDG_CACHE_HOME/colmeia/…``, else
``~/.cache/colmeia/…``; ``COLMEIA_CACHE_DIR=off`` keeps nothing. A file that cannot be read or
written is ignored (logged): the cache only ever saves time.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["VERDICT_TTL_S", "cache_file", "forget_verdicts", "recall", "remember"]

log = logging.getLogger(__name__)

#: seconds a verdict is trusted (as long as an in-process "avoid this feature" lasts)
VERDICT_TTL_S = 600.0
_LOCK = threading.Lock()


def cache_file() -> Path | None:
    """Where verdicts are kept, or ``None`` when ``COLMEIA_CACHE_DIR=off``."""
    configured = os.environ.get("COLMEIA_CACHE_DIR", "").strip()
    if configured.lower() in ("off", "none", "0"):
        return None
    if configured:
        return Path(configured).expanduser() / "endpoints.json"
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base).expanduser() if base else Path.home() / ".cache"
    return root / "colmeia" / "endpoints.json"


def _key(base_url: str, model: str) -> str:
    return f"{base_url.rstrip('/')} {model}"


def _load(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(path.read_bytes())  # JSON is UTF-8: json.loads decodes the bytes
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.info("endpoint verdicts in %s not read (%s); starting afresh", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _fresh(entry: Any, now: float, ttl_s: float = VERDICT_TTL_S) -> bool:
    at = entry.get("at") if isinstance(entry, dict) else None
    return isinstance(at, int | float) and now - float(at) < ttl_s


def recall(base_url: str, model: str, name: str, *, ttl_s: float = VERDICT_TTL_S) -> Any:
    """The verdict ``name`` learned for this endpoint within ``ttl_s`` seconds, else ``None``."""
    path = cache_file()
    if path is None:
        return None
    with _LOCK:
        entry = _load(path).get(_key(base_url, model), {}).get(name)
    if not isinstance(entry, dict) or not _fresh(entry, time.time(), ttl_s):
        return None
    return entry.get("value")


def remember(base_url: str, model: str, name: str, value: Any) -> None:
    """Keep ``value`` as this endpoint's verdict ``name`` (JSON-serialisable), now."""
    path = cache_file()
    if path is None:
        return
    with _LOCK:
        data = _load(path)
        now = time.time()
        # drop what has expired anyway, so the file stays small
        data = {
            k: kept
            for k, v in data.items()
            if isinstance(v, dict) and (kept := {n: e for n, e in v.items() if _fresh(e, now)})
        }
        data.setdefault(_key(base_url, model), {})[name] = {"value": value, "at": now}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(json.dumps(data, ensure_ascii=False, indent=1).encode())
            os.replace(tmp, path)
        except OSError as exc:
            log.info("endpoint verdict not kept in %s (%s)", path, exc)


def forget_verdicts() -> None:
    """Delete the kept verdicts (a restarted or replaced server may behave differently)."""
    path = cache_file()
    if path is not None:
        with _LOCK:
            path.unlink(missing_ok=True)
