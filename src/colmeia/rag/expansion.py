"""Document expansion (doc2query): the questions people ask that each shipped document answers.

A citizen asks "quanto tempo tenho pra devolver uma compra feita pela internet?"; the article
that answers says "o consumidor pode desistir do contrato, no prazo de 7 dias". Few of the
question's words are the law's. A researcher asks for "estudos sobre docentes do ensino
médio"; the abstract says "professores da educação básica". So each document of the shipped
corpora comes with the questions people ask that it answers, written once from its own text
(``data/laws/lay_questions/``, ``data/theses/questions/``; the build and its sources in
``data/lay_questions.json``). They are shipped as data and indexed beside the passages: every
passage of a document gets its document's questions, so a question in other words that
matches them lifts the document, while the passage's own words still decide between siblings.

A law's questions are its articles', named by LexML URN (``…;8078!art49``, the passage's
document id up to its article); any other document's are named by its document id (a
catalogue record's ``rec:…``). A collection of other documents gets no expansion; the shipped
documents get it under any collection name. ``COLMEIA_LAY_QUESTIONS`` names another file of the
same form (questions written or generated for your own documents, ``bench/doc2query.py``), or
``off``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
import numpy.typing as npt

from colmeia.errors import ConfigurationError

__all__ = [
    "ENV",
    "EXPANSION_FORM",
    "ArticleExpansion",
    "article_urn",
    "expansion_version",
    "shipped_questions",
    "subject_of",
]

# Another file of generated questions (your own laws'), or "off" for none.
ENV = "COLMEIA_LAY_QUESTIONS"
# How the questions are indexed on the word side (saved indexes are keyed on it): one entry per
# question, an article scoring its best.
EXPANSION_FORM = "per-question"
_DATA = "lay_questions.jsonl"
# The ADCT's articles sit under the Constitution's URN as ``!adct_artN``.
_ARTICLE = re.compile(r"^(urn:lex:[^!]+!(?:adct_)?art[^_#]+)")


# A reference to a norm or a dispositivo: "art. 49 da Lei 9.784", "inciso II", "CF/88".
_REFERENCE = re.compile(
    r"\b(?:art(?:igo)?s?\.?|incisos?|par[áa]grafos?|§+|al[íi]neas?|caput|leis?|complementar|"
    r"decreto(?:-lei)?|lc|cf|adct|constitui[çc][ãa]o|federal|n[º°o]\.?)(?=\W|$)|§|\d[\d./º°-]*",
    re.IGNORECASE,
)


_NAMED_ARTICLE = re.compile(r"\bart(?:igo)?s?\.?\s*\d", re.IGNORECASE)


def subject_of(query: str) -> str:
    """What a query asks about, without the norm or dispositivo it names: the part matched
    against the articles' questions. The shipped questions name no norm (the assistant reads a
    norm named from the question and filters by it), so "a lei 9784 fala de prazo?" is matched
    by "a fala de prazo?" — not by whichever short question shares "lei" or a number. A query
    naming an article ("o que diz o art. 49 da lei 9.784?") asks that article's text, which
    no question can tell better: "" (as when nothing is left)."""
    if _NAMED_ARTICLE.search(query):
        return ""
    return " ".join(_REFERENCE.sub(" ", query).split())


def article_urn(doc_id: str) -> str:
    """The article a LexML passage belongs to (``…;8078!art49_par1u`` → ``…;8078!art49``,
    ``…;1988!adct_art2_par1`` → ``…;1988!adct_art2``); "" for anything else."""
    match = _ARTICLE.match(doc_id)
    return match.group(1) if match else ""


def _source() -> str:
    """The file of questions in use: the one ``COLMEIA_LAY_QUESTIONS`` names (or ``off``), else
    the shipped one. The table is cached by this path, so each file is read once."""
    named = os.environ.get(ENV, "").strip()
    return named or _shipped_path()


def _shipped_path() -> str:
    return str(resources.files("colmeia.rag.index") / "data" / _DATA)


@lru_cache(maxsize=4)
def _loaded(source: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    # the reading is _read's: a decorated function is left out of mutation testing
    return _read(source)


def _read(source: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    if source.lower() == "off":
        return "off", {}
    try:
        raw = Path(source).read_bytes()
    except OSError as exc:
        raise ConfigurationError(
            f"the generated questions {source!r} cannot be read ({exc.strerror}): point {ENV} "
            "at a JSONL of generated questions (bench/doc2query.py writes one) or set it to 'off'"
        ) from exc
    out: dict[str, tuple[str, ...]] = {}
    for n, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            article = str(row["article"])
            questions = tuple(str(q) for q in row.get("questions", []) if str(q).strip())
            # a part of a long article: its questions are its passages' (by passage URN);
            # an article's own entry is never one of them
            keys = (
                [str(p) for p in row["passages"] if str(p) != article]
                if "passages" in row
                else [article]
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigurationError(
                f"line {n} of the generated questions ({source}) is not "
                '{"article": URN, "questions": [...]} (with "passages": [URN, ...] for a part '
                "of an article): fix or regenerate the file"
            ) from exc
        if questions:
            out.update(dict.fromkeys(keys, questions))
    return hashlib.sha256(raw).hexdigest()[:12], out


def shipped_questions() -> dict[str, tuple[str, ...]]:
    """The generated questions by article URN: the shipped ones, or those of the file
    ``COLMEIA_LAY_QUESTIONS`` names ({} when it is ``off``)."""
    return _loaded(_source())[1]


def packaged_questions() -> dict[str, tuple[str, ...]]:
    """The questions shipped with colmeia, whatever ``COLMEIA_LAY_QUESTIONS`` says: the turn
    classifier learns from them what a question about the law sounds like."""
    return _loaded(_shipped_path())[1]


def expansion_version() -> str:
    """A short hash of the questions in use: saved indexes are keyed on it."""
    return _loaded(_source())[0]


class ArticleExpansion:
    """The questions of a collection's articles (or, outside the laws, its documents), aligned
    with its passages.

    ``rows[i]`` is the entry of passage ``i``'s article (or document), or -1; ``questions`` and
    ``owners`` list every question with the entry it belongs to (indexed one question at a time
    on the word side, embedded one at a time on the vector side)."""

    def __init__(self, doc_ids: Sequence[str], table: dict[str, tuple[str, ...]]) -> None:
        # Every passage of an article gets its questions (caput, §§, incisos). Given to the
        # article's whole-text passage (else its caput) alone, lay-dev's hit@1 fell from 0.806
        # to 0.702, hit@5 the same: the passage that answers is often a § or an inciso, found by
        # its own words and lifted by its article's questions.
        # A passage of a long article's later part gets that part's questions too, written
        # from its text (the article's were written from its first 2,000 characters); given
        # to the whole article, every part's questions made a long article the nearest of
        # more questions than a short one, whatever was asked. Passages with the same
        # questions share one entry.
        entry: dict[tuple[str, tuple[str, ...]], int] = {}
        rows: list[int] = []
        for doc_id in doc_ids:
            urn = article_urn(doc_id) or doc_id
            passage = doc_id.partition("#")[0]
            part = table.get(passage, ()) if passage != urn else ()
            if urn in table or part:
                rows.append(entry.setdefault((urn, part), len(entry)))
            else:
                rows.append(-1)
        #: the article (or document) of each entry; a long article's parts are entries too
        self.articles = [urn for urn, _ in entry]
        asked = [table.get(urn, ()) + part for urn, part in entry]
        self.rows: npt.NDArray[np.int64] = np.asarray(rows, dtype=np.int64)
        self.questions = [q for qs in asked for q in qs]
        self.owners: npt.NDArray[np.int64] = np.asarray(
            [i for i, qs in enumerate(asked) for _ in qs], dtype=np.int64
        )

    def __bool__(self) -> bool:
        return bool(self.articles)

    def best_of(self, per_question: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Each article's best score among its questions (rows of :attr:`questions`)."""
        best = np.zeros(len(self.articles))
        np.maximum.at(best, self.owners, per_question)
        return best

    def per_passage(self, per_article: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """Scores by article spread to the passages (0 for passages without questions)."""
        out = np.zeros(len(self.rows), dtype=np.float32)
        has = self.rows >= 0
        out[has] = np.asarray(per_article)[self.rows[has]]
        return out
