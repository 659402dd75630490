"""The review queue: people check what the system changed or withheld, and their verdicts last.

:func:`review_items` turns result lines into items a person can judge — question, original
answer, the proposed rewrite (the accepted one, or the last one of a withheld item), scores,
reasons, policy findings and a word-level diff. :class:`VerdictLog` keeps human verdicts
(``accept``, ``reject``, ``edit`` with the edited text) with who and when, in an append-only
JSONL file beside the results (``results.verdicts.jsonl``): each verdict is one ``write`` of a
whole line followed by ``fsync`` before it is confirmed, nothing ever rewrites the file, and a
cut-off last line left by a kill is ignored on reading — a verdict once confirmed is never lost.
The latest verdict for an item wins; earlier ones stay as history.

A verdict records a hash of the text the reviewer saw: if the item is moderated again later
(``--retry-errors``, ``--overwrite``), the old verdict is *stale* and is not counted as
agreement with the new answer. :func:`export` writes the queue with verdicts to CSV (UTF-8 with
a BOM, so spreadsheet programs read the accents) or XLSX (openpyxl).
"""

from __future__ import annotations

import csv
import difflib
import getpass
import hashlib
import json
import logging
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from colmeia.apps.moderation.labels import LabelMap, fold_label
from colmeia.apps.moderation.manifest import now
from colmeia.apps.moderation.results import complete_lines
from colmeia.errors import ConfigurationError, InputError
from colmeia.spreadsheet import csv_row, xlsx_text_cells, xlsx_value

__all__ = [
    "QUEUE_OUTCOMES",
    "ReviewItem",
    "Verdict",
    "VerdictLog",
    "VerdictRecord",
    "agreement",
    "default_reviewer",
    "diff_text",
    "export",
    "filter_items",
    "review_items",
    "verdicts_path",
    "word_diff",
]

log = logging.getLogger(__name__)

Verdict = Literal["accept", "reject", "edit"]
VERDICTS: tuple[Verdict, ...] = ("accept", "edit", "reject")
# What the queue holds by default: what the system changed, and what it withheld.
QUEUE_OUTCOMES = ("ANSWER_REVISED", "DO_NOT_ANSWER")
OUTCOME_ALIASES = {
    "revised": "ANSWER_REVISED",
    "withheld": "DO_NOT_ANSWER",
    "kept": "KEEP_ORIGINAL",
    "error": "ERROR",
}


def verdicts_path(results: Path) -> Path:
    """``results.jsonl`` → ``results.verdicts.jsonl``."""
    return results.with_name(f"{results.stem if results.suffix else results.name}.verdicts.jsonl")


def default_reviewer() -> str:
    """Who is reviewing, when not told: the login name."""
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name (a container without a passwd entry)
        return "unknown"


def _sha(text: str | None) -> str:
    return hashlib.sha256((text or "").encode("utf-8", "surrogatepass")).hexdigest()[:16]


_TOKEN = re.compile(r"\s+|[^\s]+")


def word_diff(before: str, after: str) -> list[tuple[str, str]]:
    """``[(op, text)]`` with op ``=`` (kept), ``-`` (removed) or ``+`` (added), word by word."""
    a, b = _TOKEN.findall(before), _TOKEN.findall(after)
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("=", "".join(a[i1:i2])))
            continue
        if tag in ("delete", "replace"):
            out.append(("-", "".join(a[i1:i2])))
        if tag in ("insert", "replace"):
            out.append(("+", "".join(b[j1:j2])))
    return out


def diff_text(ops: Iterable[tuple[str, str]]) -> str:
    """The diff as plain text, for a file or a pipe where colours are lost: ``[-removed-]{+added+}``."""
    return "".join(
        t if op == "=" else (f"[-{t.strip()}-] " if op == "-" else f"{{+{t.strip()}+}} ")
        for op, t in ops
    )


@dataclass(slots=True)
class ReviewItem:
    """One item of the queue, as a reviewer sees it."""

    key: str
    id: Any
    outcome: str
    reason_code: str | None
    locale: str
    category: str
    intent: str
    question: str
    original: str
    proposed: str | None  # the accepted rewrite, or the last rewrite of a withheld item
    scores_original: str
    scores_final: str
    revisions: int
    reason: str
    reviews: list[tuple[str, str]] = field(default_factory=list)  # (role, justification)
    violations: list[str] = field(default_factory=list)
    run: int | None = None
    feedback: str = ""  # the merchant's feedback on the original, shown beside it

    @property
    def answer_sha(self) -> str:
        """Identifies the text judged (the proposed answer, or the original when kept)."""
        return _sha(self.proposed if self.proposed is not None else self.original)

    def diff(self) -> list[tuple[str, str]]:
        return word_diff(self.original, self.proposed or "")


def _scores(s: Mapping[str, Any] | None) -> str:
    if not s:
        return ""
    return f"{s.get('semantic')}+{s.get('contextual')}"


def review_items(results: Mapping[str, Mapping[str, Any]]) -> list[ReviewItem]:
    """Every result line as a review item, in file order."""
    out = []
    for key, r in results.items():
        trail = r.get("trail") or []
        rewrites = [
            t["output"]["answer"]
            for t in trail
            if t.get("role") == "rewriter" and t.get("output") and t["output"].get("can_rewrite")
        ]
        proposed = r.get("final_answer") if r.get("outcome") == "ANSWER_REVISED" else None
        if proposed is None and r.get("outcome") == "DO_NOT_ANSWER" and rewrites:
            proposed = rewrites[-1]
        scores = r.get("scores") or {}
        finals = scores.get("rewrites") or []
        last_round = max((int(t.get("round", 0)) for t in trail), default=0)
        out.append(
            ReviewItem(
                key=key,
                id=r.get("id"),
                outcome=str(r.get("outcome")),
                reason_code=r.get("reason_code"),
                locale=str(r.get("locale") or ""),
                category=str(r.get("category") or ""),
                intent=str(r.get("intent") or ""),
                question=str(r.get("question") or ""),
                original=str(r.get("original_answer") or ""),
                proposed=proposed,
                scores_original=_scores(scores.get("original")),
                scores_final=_scores(finals[-1]) if finals else "",
                revisions=int(r.get("revisions") or 0),
                reason=str(r.get("reason") or r.get("error") or ""),
                reviews=[
                    (str(t["role"]), str(t["output"].get("justification", "")))
                    for t in trail
                    if t.get("role") in ("semantic", "contextual")
                    and t.get("output")
                    and int(t.get("round", 0)) == last_round
                ],
                violations=[
                    f"{v.get('checked')}: {v.get('message')}"
                    for v in (r.get("policy") or {}).get("violations", [])
                ],
                run=r.get("run"),
                feedback=str(r.get("feedback") or ""),
            )
        )
    return out


def filter_items(
    items: Sequence[ReviewItem],
    *,
    outcomes: Sequence[str] = QUEUE_OUTCOMES,
    category: str | None = None,
    locale: str | None = None,
    exclude: Iterable[str] = (),
    labels: LabelMap | None = None,
) -> list[ReviewItem]:
    """Items with one of ``outcomes`` (``revised``/``withheld``/``kept``/``error`` work too),
    in ``category`` (any label of its group: ``Ferramentas`` finds ``Herramientas``) and
    ``locale``, leaving out the keys in ``exclude`` (e.g. those already judged)."""
    wanted = {OUTCOME_ALIASES.get(o.casefold(), o.upper()) for o in outcomes}
    unknown = wanted - {*OUTCOME_ALIASES.values()}
    if unknown:
        raise ConfigurationError(
            f"unknown outcome(s) {', '.join(sorted(unknown))}; use revised, withheld, kept, error"
        )
    skip = set(exclude)
    labels = labels or LabelMap.load()
    group = labels.group("category", category) if category else None
    out = []
    for item in items:
        if item.outcome not in wanted or item.key in skip:
            continue
        if locale and fold_label(item.locale) != fold_label(locale):
            continue
        if group is not None and labels.group("category", item.category) != group:
            continue
        out.append(item)
    return out


@dataclass(frozen=True, slots=True)
class VerdictRecord:
    """A person's verdict on one item."""

    key: str
    verdict: Verdict
    by: str
    at: str
    outcome: str
    answer_sha: str
    note: str = ""
    edited_answer: str | None = None
    run: int | None = None

    @classmethod
    def of(
        cls,
        item: ReviewItem,
        verdict: str,
        *,
        by: str,
        note: str = "",
        edited_answer: str | None = None,
    ) -> VerdictRecord:
        if verdict not in VERDICTS:
            raise ConfigurationError(f"verdict must be accept, reject or edit, not {verdict!r}")
        if verdict == "edit" and not (edited_answer or "").strip():
            raise ConfigurationError("an 'edit' verdict needs the edited answer text")
        if not by.strip():
            raise ConfigurationError("say who gives the verdict (--by NAME)")
        return cls(
            key=item.key,
            verdict=verdict,
            by=by.strip(),
            at=now(),
            outcome=item.outcome,
            answer_sha=item.answer_sha,
            note=note,
            edited_answer=edited_answer if verdict == "edit" else None,
            run=item.run,
        )


class VerdictLog:
    """The append-only verdicts file (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def append(self, record: VerdictRecord) -> None:
        """Write one verdict durably: one ``write`` of a whole line, then ``fsync``."""
        line = (json.dumps(asdict(record), ensure_ascii=False) + "\n").encode("utf-8")
        created = not self.path.exists()
        if created:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            if os.fstat(fd).st_size and not self._ends_with_newline(fd):
                # A kill cut the last line short: start on a fresh line so this one is whole.
                line = b"\n" + line
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            dfd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dfd)  # the new file's name is durable too
            finally:
                os.close(dfd)

    @staticmethod
    def _ends_with_newline(fd: int) -> bool:
        size = os.fstat(fd).st_size
        return os.pread(fd, 1, size - 1) == b"\n"

    def read(self) -> list[VerdictRecord]:
        """Every complete verdict, in the order given; a cut-off or broken line is skipped."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise InputError(f"{self.path}: cannot read the verdicts ({exc.strerror})") from None
        out = []
        fields = set(VerdictRecord.__dataclass_fields__)
        for number, line in complete_lines(data):
            try:
                raw = json.loads(line)
                out.append(VerdictRecord(**{k: v for k, v in raw.items() if k in fields}))
            except (json.JSONDecodeError, UnicodeDecodeError, TypeError, AttributeError):
                log.warning("%s:%d: not a valid verdict line; ignored", self.path, number)
        return out

    def latest(self) -> dict[str, VerdictRecord]:
        """The last verdict per item."""
        return {v.key: v for v in self.read()}


def agreement(items: Sequence[ReviewItem], verdicts: Mapping[str, VerdictRecord]) -> dict[str, Any]:
    """How often people agreed with the system, per outcome (stale verdicts apart)."""
    by_outcome: dict[str, Counter[str]] = {}
    stale = 0
    for item in items:
        v = verdicts.get(item.key)
        if v is None:
            continue
        if v.answer_sha != item.answer_sha or v.outcome != item.outcome:
            stale += 1
            continue
        by_outcome.setdefault(item.outcome, Counter())[v.verdict] += 1
    total = sum(sum(c.values()) for c in by_outcome.values())
    accepted = sum(c["accept"] for c in by_outcome.values())
    edited = sum(c["edit"] for c in by_outcome.values())
    return {
        "reviewed": total,
        "stale": stale,
        "by_outcome": {o: {v: c[v] for v in VERDICTS} for o, c in sorted(by_outcome.items())},
        "agreement": accepted / total if total else None,
        "accepted_or_edited": (accepted + edited) / total if total else None,
    }


_COLUMNS = (
    "key",
    "id",
    "outcome",
    "reason_code",
    "locale",
    "category",
    "intent",
    "question",
    "original_answer",
    "merchant_feedback",
    "proposed_answer",
    "diff",
    "scores_original",
    "scores_final",
    "revisions",
    "system_reason",
    "policy_violations",
    "verdict",
    "by",
    "at",
    "edited_answer",
    "note",
    "verdict_is_stale",
)


def _rows(
    items: Sequence[ReviewItem], verdicts: Mapping[str, VerdictRecord]
) -> Iterable[list[Any]]:
    for item in items:
        v = verdicts.get(item.key)
        stale = v is not None and (v.answer_sha != item.answer_sha or v.outcome != item.outcome)
        yield [
            item.key,
            item.id,
            item.outcome,
            item.reason_code or "",
            item.locale,
            item.category,
            item.intent,
            item.question,
            item.original,
            item.feedback,
            item.proposed or "",
            diff_text(item.diff()) if item.proposed else "",
            item.scores_original,
            item.scores_final,
            item.revisions,
            item.reason,
            "; ".join(item.violations),
            v.verdict if v else "",
            v.by if v else "",
            v.at if v else "",
            (v.edited_answer or "") if v else "",
            v.note if v else "",
            "yes" if stale else "",
        ]


def export(items: Sequence[ReviewItem], verdicts: Mapping[str, VerdictRecord], path: Path) -> Path:
    """Write the queue with its verdicts to ``path`` (``.csv`` or ``.xlsx``)."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".xlsx"):
        raise ConfigurationError(f"{path}: export to a .csv or .xlsx file")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    if suffix == ".csv":
        with open(tmp, "w", encoding="utf-8-sig", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(_COLUMNS)
            writer.writerows(csv_row(row) for row in _rows(items, verdicts))
    else:
        _xlsx(tmp, list(_rows(items, verdicts)))
    os.replace(tmp, path)
    return path


def _xlsx(path: Path, rows: list[list[Any]]) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    wb = Workbook()
    ws = wb.active
    ws.title = "review"
    ws.append(list(_COLUMNS))
    for row in rows:
        ws.append([xlsx_value(v) for v in row])
    xlsx_text_cells(ws, min_row=2)  # text from a model is never a formula
    for cell in ws[1]:
        cell.font = Font(bold=True)
    wide = {
        "question": 40,
        "original_answer": 60,
        "merchant_feedback": 40,
        "proposed_answer": 60,
        "diff": 60,
    }
    for i, name in enumerate(_COLUMNS, start=1):
        ws.column_dimensions[get_column_letter(i)].width = wide.get(name, 16)
        if name in wide or name in ("system_reason", "edited_answer", "note"):
            for cell in ws[get_column_letter(i)][1:]:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = ws.dimensions
    wb.save(path)
