"""Few-shot files in the chapter's own shape: Thought / Action / Observation steps.

A student copies the chapter's worked example into a file — a question, steps of thought, action
and observation, a final answer — and the agent must get it in its prompt written in the protocol
it reads back, not be refused with "'steps' must be a list of strings".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from colmeia.agents.few_shot import load_few_shot
from colmeia.errors import InputError

CHAPTER_EXAMPLE = {
    "question": "Quantas maçãs sobram se eu tinha 23, usei 20 e comprei mais 6?",
    "steps": [
        {"thought": "Primeiro subtraio as usadas.", "action": "calculator",
         "action_input": {"expression": "23 - 20"}, "observation": "3"},
        {"Thought": "Agora somo as compradas.", "Action": "calculator[3 + 6]",
         "Observation": "9"},
    ],
    "final_answer": "Sobram 9 maçãs.",
}  # fmt: skip


def _write(tmp_path: Path, *examples: object) -> Path:
    path = tmp_path / "exemplos.jsonl"
    path.write_text(
        "\n".join(json.dumps(e, ensure_ascii=False) for e in examples) + "\n", encoding="utf-8"
    )
    return path


def test_the_chapters_steps_are_written_in_the_protocols_lines(tmp_path: Path) -> None:
    block = load_few_shot(_write(tmp_path, CHAPTER_EXAMPLE))
    assert block == (
        "Example 1\n"
        "Task: Quantas maçãs sobram se eu tinha 23, usei 20 e comprei mais 6?\n"
        "  Thought: Primeiro subtraio as usadas.\n"
        "  Action: calculator\n"
        '  Action Input: {"expression": "23 - 20"}\n'
        "  Observation: 3\n"
        "  Thought: Agora somo as compradas.\n"
        "  Action: calculator[3 + 6]\n"
        "  Observation: 9\n"
        "Answer: Sobram 9 maçãs."
    )


def test_string_steps_and_object_steps_mix(tmp_path: Path) -> None:
    example = {"task": "10% de 50?", "steps": ["Action: calculator[10% de 50]",
                                               {"observation": "5"}], "answer": "5"}  # fmt: skip
    assert "  Action: calculator[10% de 50]\n  Observation: 5\n" in load_few_shot(
        _write(tmp_path, example)
    )


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({"thought": "x", "observaton": "5"}, "step 1: unknown key(s) 'observaton'; a step takes"),
        ({"thought": " "}, "step 1: the step is empty"),
        (42, "step 1 must be a string or an object with thought, action, action_input"),
    ],
)
def test_a_bad_step_names_the_line_the_step_and_what_is_wrong(
    tmp_path: Path, step: object, message: str
) -> None:
    path = _write(tmp_path, CHAPTER_EXAMPLE, {"task": "t", "steps": [step], "answer": "a"})
    with pytest.raises(InputError, match=re.escape(f"exemplos.jsonl:2: {message}")):
        load_few_shot(path)
