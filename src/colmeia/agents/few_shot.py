"""Few-shot examples for an agent's system prompt, from a file a student writes.

Two formats:

* ``.jsonl`` — one worked example per line, ``{"task": …, "answer": …}`` with optional
  ``"steps"`` (a list of strings: the thoughts and tool calls that led to the answer);
* anything else (``.md``, ``.txt``) — the text as written, put in the prompt verbatim.

A bad line is an :class:`~colmeia.errors.InputError` naming the file, the line and what is wrong:
a prompt silently missing an example would teach the model less than the student thinks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from colmeia.errors import InputError

__all__ = ["FewShotExample", "load_few_shot", "render_few_shot"]


@dataclass(frozen=True, slots=True)
class FewShotExample:
    task: str
    answer: str
    steps: tuple[str, ...] = field(default=())


def _example(path: Path, number: int, line: str) -> FewShotExample:
    where = f"{path}:{number}"
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise InputError(f"{where}: not JSON ({exc.args[0]})") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: an example is an object with 'task' and 'answer'")
    missing = [k for k in ("task", "answer") if not str(data.get(k) or "").strip()]
    if missing:
        raise InputError(f"{where}: the example has no {' or '.join(repr(m) for m in missing)}")
    steps = data.get("steps", [])
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise InputError(f"{where}: 'steps' must be a list of strings")
    return FewShotExample(str(data["task"]).strip(), str(data["answer"]).strip(), tuple(steps))


def load_few_shot(path: Path) -> str:
    """The few-shot block for a prompt, read from ``path`` (see the module's formats)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such few-shot file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read as UTF-8 text ({exc})") from None
    if path.suffix.lower() != ".jsonl":
        if not text.strip():
            raise InputError(f"{path}: the few-shot file is empty")
        return text.strip()
    examples = [
        _example(path, number, line)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]
    if not examples:
        raise InputError(f"{path}: the few-shot file has no examples")
    return render_few_shot(examples)


def render_few_shot(examples: list[FewShotExample]) -> str:
    """Examples as the prompt shows them: task, the steps taken, the answer."""
    blocks = []
    for i, ex in enumerate(examples, start=1):
        lines = [f"Example {i}", f"Task: {ex.task}"]
        lines += [f"  {step}" for step in ex.steps]
        lines.append(f"Answer: {ex.answer}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
