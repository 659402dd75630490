"""Few-shot examples for an agent's system prompt, from a file a student writes.

Two formats:

* ``.jsonl`` — one worked example per line, ``{"task": …, "answer": …}`` (or ``"question"`` /
  ``"final_answer"``, the chapter's words) with optional ``"steps"``: the thoughts and tool calls
  that led to the answer, either as strings written as the model should write them, or in the
  chapter's own shape, one object per step with ``thought``, ``action``, ``action_input`` and
  ``observation`` (any of them; written out as ``Thought:`` / ``Action:`` / ``Action Input:`` /
  ``Observation:`` lines, the protocol the agent reads back);
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
    for alias, key in (("question", "task"), ("final_answer", "answer")):
        if key not in data and alias in data:
            data[key] = data.pop(alias)
    missing = [k for k in ("task", "answer") if not str(data.get(k) or "").strip()]
    if missing:
        raise InputError(f"{where}: the example has no {' or '.join(repr(m) for m in missing)}")
    steps = data.get("steps", [])
    if not isinstance(steps, list):
        raise InputError(f"{where}: 'steps' must be a list (of strings or of step objects)")
    lines: list[str] = []
    for n, step in enumerate(steps, start=1):
        if isinstance(step, str):
            lines.append(step)
        elif isinstance(step, dict):
            lines += _step_lines(f"{where}: step {n}", step)
        else:
            raise InputError(
                f"{where}: step {n} must be a string or an object with "
                f"{', '.join(_STEP_KEYS)}, not {type(step).__name__}"
            )
    return FewShotExample(str(data["task"]).strip(), str(data["answer"]).strip(), tuple(lines))


# The chapter's step, in the order the protocol writes it, with the label each line takes.
_STEP_KEYS = ("thought", "action", "action_input", "observation")
_LABELS = {
    "thought": "Thought",
    "action": "Action",
    "action_input": "Action Input",
    "observation": "Observation",
}


def _step_lines(where: str, step: dict[str, object]) -> list[str]:
    """A step object as the protocol's lines; a key the protocol has no line for is an error
    (a misspelt "observaton" would silently vanish from the prompt)."""
    given = {str(k).strip().casefold().replace(" ", "_"): v for k, v in step.items()}
    unknown = sorted(set(given) - set(_STEP_KEYS))
    if unknown:
        raise InputError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; a step takes "
            f"{', '.join(_STEP_KEYS)}"
        )
    if not any(str(v or "").strip() for v in given.values()):
        raise InputError(f"{where}: the step is empty")
    lines = []
    for key in _STEP_KEYS:
        value = given.get(key)
        if value is None or value == "":
            continue
        # Tool arguments given as an object are written as the JSON the model must produce.
        text = json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value
        lines.append(f"{_LABELS[key]}: {str(text).strip()}")
    return lines


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
