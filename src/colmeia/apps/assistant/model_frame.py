"""A turn's frame filled by the model when the classifier is unsure, every slot validated.

With a model configured, a turn is read as offline (:func:`~colmeia.apps.assistant.frame.
read_frame`); when the classifier's reading is below :data:`~colmeia.apps.assistant.frame.
CONFIDENT`, the model fills the same frame by structured output (``frame.j2``). Its intent
and aspect are a closed vocabulary (the schema refuses anything else); its case numbers and
norms are checked by the formal parsers against what the person typed — a number the person
did not type (nor the thread hold) is never used, and the frame's references stay the parsers'
own. The frame is then dispatched in code exactly as offline: the model reads, it does not
route. A model that fails (an error, an answer the schema refuses) leaves the classifier's
frame.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from colmeia.apps.assistant.case_refs import CaseRef, read_case_refs
from colmeia.apps.assistant.frame import (
    CONFIDENT,
    Aspect,
    Intent,
    ThreadRef,
    TurnFrame,
    read_frame,
)
from colmeia.apps.assistant.ids import read_case_ids
from colmeia.apps.assistant.intents import Prediction
from colmeia.apps.assistant.scope import NormMention, named_norms
from colmeia.errors import ColmeiaError
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt

__all__ = ["Checked", "FrameReading", "ModelFrame", "frame_by_model", "validate"]

log = logging.getLogger(__name__)

_PKG = "colmeia.apps.assistant"


class ModelFrame(BaseModel):
    """The frame as the model fills it (the structured output's schema)."""

    intent: Intent
    aspect: Aspect = "status"
    cases: list[str] = Field(default_factory=list, max_length=5)
    norms: list[str] = Field(default_factory=list, max_length=5)
    thread: Literal["none", "last", "other", "first"] = "none"


@dataclass(slots=True)
class FrameReading:
    """The frame a turn is dispatched from, and who read it: ``classifier`` (confident, or
    the model failed), ``model`` (its slots validated); ``refused`` lists the model's slots
    the parsers did not accept ("case 'TC/000032/2023' not typed")."""

    frame: TurnFrame
    by: Literal["classifier", "model"]
    refused: list[str] = field(default_factory=list)


def _digits(text: str) -> set[int]:
    """The numbers typed in ``text`` ("4.506" is 4506), as integers ("004506" is 4506)."""
    return {int(d) for d in re.findall(r"\d+", re.sub(r"(?<=\d)\.(?=\d{3}\b)", "", text))}


def _typed(ref: CaseRef, typed: set[int]) -> bool:
    """Whether the person typed this reference's number and, if it has one, its year (in two
    or four digits)."""
    year = ref.year is None or ref.year in typed or ref.year % 100 in typed
    return ref.number in typed and year


def _in_thread(ref: CaseRef, thread: Sequence[str], today: dt.date | None) -> bool:
    for case in thread:
        ids = read_case_ids(case, today=today)
        if ids and ids[0].number == ref.number and (ref.year in (None, ids[0].year)):
            return True
    return False


def _same_norm(a: NormMention, b: NormMention) -> bool:
    """The same norm, the year left out on either side or in two digits ("Lei 9.784" and
    "Lei 9.784/1999" are "lei 9.784/99")."""
    years = not a.year or not b.year or a.year[-2:] == b.year[-2:]
    return (a.kind, a.number) == (b.kind, b.number) and years


@dataclass(slots=True)
class Checked:
    """The model's slots after the parsers: the case references they accept (typed, or
    held by the thread), those of them the person typed, and what they refused, said for the
    log."""

    cases: list[CaseRef] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    typed: list[CaseRef] = field(default_factory=list)


def validate(
    out: ModelFrame, text: str, thread: Sequence[str], *, today: dt.date | None = None
) -> Checked:
    """The model's slots checked by the formal parsers: a case number must parse and be one
    the person typed (its number and year among the text's numbers) or one of the thread's
    cases; a norm must parse and be named in the text."""
    checked = Checked()
    typed = _digits(text)
    for given in out.cases:
        refs = read_case_refs(given, today=today) or read_case_refs(
            f"processo {given}", today=today
        )
        if not refs:
            checked.refused.append(f"case {given!r} does not parse")
        elif all(_typed(r, typed) or _in_thread(r, thread, today) for r in refs):
            checked.cases += refs
            checked.typed += [r for r in refs if _typed(r, typed)]
        else:
            checked.refused.append(f"case {given!r} not typed")
    named = named_norms(text)
    for given in out.norms:
        norms = named_norms(given)
        if not norms:
            checked.refused.append(f"norm {given!r} does not parse")
        elif not all(any(_same_norm(n, m) for m in named) for n in norms):
            checked.refused.append(f"norm {given!r} not named")
    return checked


async def frame_by_model(
    model: ChatModel,
    text: str,
    thread: Sequence[str],
    *,
    today: dt.date | None = None,
    below: float = CONFIDENT,
    max_tokens: int = 200,
) -> FrameReading:
    """The turn's frame: the classifier's when its confidence is at least ``below`` (``1``:
    never), else the model's (validated), else — the model failed — the classifier's."""
    read = read_frame(text, today=today)
    if read.confidence >= below and below < 1:
        return FrameReading(read, "classifier")
    try:
        out = await model.structured(
            [
                Message.system(render_prompt(_PKG, "frame.j2", cases=list(thread))),
                Message.user(text),
            ],
            ModelFrame,
            max_tokens=max_tokens,
        )
    except ColmeiaError as exc:
        log.info("the model did not fill the frame of %r: %s", text[:80], exc)
        return FrameReading(read, "classifier")
    checked = validate(out, text, thread, today=today)
    if checked.refused:
        log.info("the model's frame of %r: refused %s", text[:80], checked.refused)
    # only a number the person typed is a case of this turn; one the model copied from the
    # thread is the thread's, which the thread's own rules handle ("e quem fez a denúncia?"
    # is not a mixed question because the thread has a case)
    typed = checked.typed
    if out.intent == "mixed" and not read.cases and not typed and read.thread is None:
        # a mixed reading needs a case in the message — typed, or pointed at ("dele", "o
        # outro"): without one the model's reading is not the text's, and the classifier's
        # stands (a small model read "qual restaurante bom perto do tribunal" as mixed)
        log.info("the model read %r as mixed without a case in it: not taken", text[:80])
        return FrameReading(read, "classifier", [*checked.refused, "mixed without a case"])
    # the model's reading counts as a confident one: the same rules then apply to it
    frame = read_frame(
        text,
        today=today,
        predicted=Prediction(out.intent, out.aspect, {out.intent: CONFIDENT}),
    )
    if not frame.cases and typed:
        # a number the parsers did not read as a case ("4506 barra 23"), typed all the same:
        # the registry resolves it as the model wrote it
        frame.cases = typed
        frame.case_part = "; ".join(_written(r) for r in typed)
        frame.thread = None
        frame.about_a_case = True
        if frame.intent not in ("case", "mixed"):
            frame.intent = "mixed" if frame.intent == "law" else "case"
        if frame.intent == "mixed":
            frame.law_part = frame.law_part or text
    if frame.thread is None and not frame.cases and out.thread in ("other", "first"):
        frame.thread = ThreadRef(out.thread) if len(thread) > 1 else None
    return FrameReading(frame, "model", checked.refused)


def _written(ref: CaseRef) -> str:
    kind = "expediente" if ref.kind == "expediente" else "processo"
    return f"{kind} {ref.number}/{ref.year}" if ref.year else f"{kind} {ref.number}"
