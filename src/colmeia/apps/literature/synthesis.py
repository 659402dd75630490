"""``colmeia review ask``: one answer synthesised across the works of a collection, every claim
citing the work (author, year) and the page or passage it rests on.

Search finds the works and their best passages (hybrid when the collection has vectors); the
passages of the first ``works`` works are numbered S1…Sn.

* **With a model**: one validated JSON — a list of claims, each with the ids of the passages it
  rests on (the JSON Schema allows only the ids given), or ``nothing_relevant``. A citation
  whose passage does not share enough of the claim's content words is removed, and a claim left
  without any is dropped and reported: nothing reaches the reader uncited.
* **Offline**: extractive, sentence by sentence — from each work, the sentence of its passages
  (never its title, a heading or the keywords line: :func:`body_sentences`) that covers most of
  the question's terms, cited; a sentence another work already said in nearly the same words is
  not repeated; the claims follow the works by year, then author.

Citations are ABNT author-date; two works of one author and year are told apart by a letter
("SILVA, 2019a", "SILVA, 2019b", in the order of their titles, as the reference list has them).

"Nothing relevant" is a stated bar, not silence: when no passage covers at least
:data:`MIN_COVERAGE` of the question's content words (stemmed, accents folded), or the model
says so, the answer says that no work of the collection answers the question.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from colmeia.apps.literature.expansion import expand_query, fused_search
from colmeia.apps.literature.extractive import body_sentences
from colmeia.errors import ConfigurationError, ModelError
from colmeia.llm.base import ChatModel, Message
from colmeia.llm.prompts import render_prompt
from colmeia.rag.index.embedders import Embedder
from colmeia.rag.index.lexical import Analyzer
from colmeia.rag.retrieve import Hit, Retriever
from colmeia.store.base import Store, StoredDocument

__all__ = ["MIN_COVERAGE", "NOTHING_RELEVANT", "Claim", "Source", "Synthesis", "ask_collection"]

#: Share of the question's content words a passage must hold for the collection to be said to
#: answer it at all (offline bar; the model states its own).
MIN_COVERAGE = 0.34
#: Share of a claim's content words its cited passages must hold for a citation to stand.
MIN_SUPPORT = 0.3
NOTHING_RELEVANT = "Nenhum trabalho da coleção responde a esta pergunta."
_ASK_MAX_TOKENS = 1200


@dataclass(slots=True)
class Source:
    """A passage an answer may cite: which work, which page, what it says."""

    id: str  # S1, S2…
    doc_id: str
    title: str
    authors: list[str]
    year: int | None
    pages: str  # printed page(s); "" for the record (title and abstract)
    text: str
    suffix: str = ""  # "a", "b"… when the author has other works of the same year here

    def author(self) -> str:
        """The citation's author part: ``PEREIRA``, ``LIMA et al.``, or the title's start."""
        author = self.authors[0].split(",")[0].strip().upper() if self.authors else ""
        if not author:
            author = self.title.split(":")[0][:60].upper()
        if len(self.authors) > 1:
            author += " et al."
        return author

    def label(self) -> str:
        """``(PEREIRA, 2017a, p. 12)`` — ABNT author-date, the page when there is one."""
        where = f", p. {self.pages}" if self.pages else ", resumo"
        return f"({self.author()}, {self.year or 's.d.'}{self.suffix}{where})"


@dataclass(slots=True)
class Claim:
    """One statement of the answer and the passages it rests on."""

    text: str
    sources: list[str]


@dataclass(slots=True)
class Synthesis:
    """The answer: claims with their sources, or nothing relevant."""

    question: str
    claims: list[Claim]
    sources: list[Source]
    mode: str  # "extractive" or "model:<name>"
    nothing_relevant: bool = False
    removed: list[str] = field(default_factory=list)  # citations/claims that did not hold
    seconds: float = 0.0

    def text(self) -> str:
        """The answer as a reader sees it, each claim followed by its citations."""
        if self.nothing_relevant or not self.claims:
            return NOTHING_RELEVANT
        by_id = {s.id: s for s in self.sources}
        parts = []
        for c in self.claims:
            cites = "; ".join(by_id[i].label().strip("()") for i in c.sources if i in by_id)
            parts.append(f"{c.text.rstrip()} ({cites})")
        return " ".join(parts)

    def works(self) -> list[str]:
        """The works the answer cites, in the order first cited."""
        by_id = {s.id: s for s in self.sources}
        return list(dict.fromkeys(by_id[i].doc_id for c in self.claims for i in c.sources))

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.text(),
            "nothing_relevant": self.nothing_relevant or not self.claims,
            "mode": self.mode,
            "claims": [asdict(c) for c in self.claims],
            "sources": [{**asdict(s), "label": s.label()} for s in self.sources],
            "removed": self.removed,
            "seconds": round(self.seconds, 3),
        }


def _disambiguate(sources: Sequence[Source]) -> None:
    """Letters for the works of one author and year (ABNT: "SILVA, 2019a"), in the order of
    their titles; a work keeps one letter across its passages."""
    works: dict[tuple[str, str], dict[str, str]] = {}
    for s in sources:
        works.setdefault((s.author(), str(s.year or "s.d.")), {})[s.doc_id] = s.title
    letters: dict[str, str] = {}
    for titles in works.values():
        if len(titles) > 1:
            ordered = sorted(titles, key=lambda d: (titles[d].casefold(), d))
            letters.update({d: chr(ord("a") + i) for i, d in enumerate(ordered)})
    for s in sources:
        s.suffix = letters.get(s.doc_id, "")


def _near_duplicate(a: str, b: str, analyzer: Analyzer) -> bool:
    x, y = set(analyzer.tokens(a)), set(analyzer.tokens(b))
    return bool(x and y) and len(x & y) / len(x | y) >= 0.8


def _coverage(terms: set[str], text: str, analyzer: Analyzer) -> float:
    return len(terms & set(analyzer.tokens(text))) / len(terms) if terms else 0.0


def _sources(groups: Sequence[tuple[StoredDocument, Sequence[Hit]]]) -> list[Source]:
    """The passages found, numbered S1…Sn (the search gave each work at most ``per_work``)."""
    out: list[Source] = []
    for doc, hits in groups:
        authors = [str(a) for a in doc.metadata.get("authors") or []]
        for h in hits:
            out.append(
                Source(
                    f"S{len(out) + 1}",
                    doc.doc_id,
                    doc.title,
                    authors,
                    doc.year,
                    h.citation.pages() if h.citation.page >= 1 else "",
                    h.text,
                )
            )
    return out


def _extractive(question: str, sources: Sequence[Source]) -> tuple[list[Claim], bool]:
    """The best sentence of each work (by the question terms it covers), cited; works whose
    best sentence covers less than :data:`MIN_COVERAGE` of the question are left out."""
    analyzer = Analyzer()
    terms = set(analyzer.tokens(question))
    best_overall = 0.0
    claims: list[Claim] = []
    seen: set[str] = set()
    for s in sources:
        if s.doc_id in seen:
            continue
        candidates = [x for x in sources if x.doc_id == s.doc_id]
        scored = [
            (_coverage(terms, sentence, analyzer), -n, sentence, x.id)
            for x in candidates
            # body_sentences leaves out the title, headings and keywords line (a record passage
            # is "title / RESUMO / abstract / Palavras-chave: …", one item a line), and strips
            # each sentence.
            for n, sentence in enumerate(body_sentences(x.text, x.title))
            if len(sentence.split()) >= 5 and sentence[-1:] in ".!?…"
        ]
        seen.add(s.doc_id)
        if not scored:
            continue
        scored.sort(reverse=True)
        best_overall = max(best_overall, scored[0][0])
        for cover, _, sentence, sid in scored:
            if cover < MIN_COVERAGE:  # a work that barely touches the question is not cited
                break
            if not any(_near_duplicate(sentence, c.text, analyzer) for c in claims):
                claims.append(Claim(sentence, [sid]))
                break
    by_id = {x.id: x for x in sources}
    claims.sort(key=lambda c: (by_id[c.sources[0]].year or 0, by_id[c.sources[0]].author()))
    return claims, best_overall < MIN_COVERAGE


class _ClaimOut(BaseModel):
    text: str = Field(description="One statement, in the language of the question.")
    sources: list[str] = Field(description="Ids of the passages it rests on, e.g. ['S1'].")


def _answer_schema(ids: Sequence[str]) -> type[BaseModel]:
    """The JSON the model must return, its source ids limited to those given (so a guided
    decoder cannot write S9 when there are five)."""
    allowed = Literal[tuple(ids)]  # type: ignore[valid-type]
    claim = create_model(
        "SynthesisClaim",
        text=(str, Field(description="One statement, in the language of the question.")),
        sources=(list[allowed], Field(description="Ids of the passages it rests on.")),  # type: ignore[valid-type]
    )
    return create_model(
        "Synthesis",
        claims=(list[claim], Field(description="The answer, one claim at a time.")),
        nothing_relevant=(
            bool,
            Field(default=False, description="True when no passage answers the question."),
        ),
    )


async def _with_model(
    model: ChatModel, question: str, sources: Sequence[Source]
) -> tuple[list[Claim], bool, list[str]]:
    prompt = render_prompt("colmeia.apps.literature", "ask.j2", sources=sources)
    schema = _answer_schema([s.id for s in sources])
    out = await model.structured(
        [Message.system(prompt), Message.user(question)],
        schema,
        temperature=0.2,
        max_tokens=_ASK_MAX_TOKENS,
    )
    data = out.model_dump()
    analyzer = Analyzer()
    by_id = {s.id: s for s in sources}
    claims: list[Claim] = []
    removed: list[str] = []
    # The schema requires every claim with its text and sources, each source an id given.
    for c in data["claims"]:
        text = " ".join(str(c["text"]).split())
        if not text:
            continue
        words = set(analyzer.tokens(text))
        kept = []
        for sid in dict.fromkeys(str(x) for x in c["sources"]):
            if words and _coverage(words, by_id[sid].text, analyzer) < MIN_SUPPORT:
                removed.append(f"{sid}: does not support «{text[:80]}»")
            else:
                kept.append(sid)
        if kept:
            claims.append(Claim(text, kept))
        else:
            removed.append(f"claim without a passage that supports it: «{text[:80]}»")
    return claims, bool(data.get("nothing_relevant")) and not claims, removed


async def ask_collection(
    store: Store,
    collection: str,
    question: str,
    *,
    model: ChatModel | None = None,
    model_name: str = "",
    embedder: Embedder | None = None,
    works: int = 5,
    per_work: int = 2,
    expand: bool = False,
) -> Synthesis:
    """Answer ``question`` from the ``works`` best works of ``collection`` (``per_work``
    passages each), every claim citing its work and page (see the module docstring).
    ``expand`` (with a model) searches the model's rewritings of the question too."""
    started = time.perf_counter()
    if store.collection(collection) is None:
        raise ConfigurationError(
            f"no collection named {collection!r} in {store.url}; import the works first "
            "(`colmeia review import FILE --collection NAME`)"
        )
    retriever = Retriever(store, collection, embedder=embedder)  # per_work given to each search
    if expand and model is not None:
        # The model's rewritings find works whose abstracts use other words (see expansion).
        queries = await expand_query(model, question)
        groups = fused_search(retriever, queries, works, per_document=per_work)
    else:
        groups = retriever.search_documents(question, works, per_document=per_work)
    docs = {d.doc_id: d for d in store.documents(collection)}
    found = [(docs[g.doc_id], g.hits) for g in groups if g.doc_id in docs]
    sources = _sources(found)
    _disambiguate(sources)
    if not sources:
        return Synthesis(question, [], [], "extractive", True)
    analyzer = Analyzer()
    terms = set(analyzer.tokens(question))
    covered = max(_coverage(terms, s.text, analyzer) for s in sources)
    removed: list[str] = []
    if model is None:
        claims, nothing = _extractive(question, sources)
        mode = "extractive"
    else:
        try:
            claims, nothing, removed = await _with_model(model, question, sources)
            mode = f"model:{model_name or 'model'}"
        except ModelError as exc:
            claims, nothing = _extractive(question, sources)
            mode = "extractive"
            removed.append(f"the model failed ({exc}); extractive answer")
    # Offline the bar is the question's words; a model that read the passages may find an
    # answer a lexical bar misses (a paraphrase, another language), so its word counts there.
    # (Whenever nothing is relevant there are no claims: no sentence covers more of the
    # question than its passage, and a model's "nothing relevant" stands only without claims.)
    if model is None and covered < MIN_COVERAGE:
        nothing = True
    return Synthesis(
        question,
        claims,
        sources,
        mode,
        nothing,
        removed,
        time.perf_counter() - started,
    )
