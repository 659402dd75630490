"""Build the lay questions shipped for the shipped laws (``colmeia/rag/index/data/lay_questions.*``).

Written from the articles' own text, and asked in the development conversation sets:

* ``written/lay_*.jsonl`` and ``written/formal_*.jsonl`` — questions written for every article
  of the nine laws, the Constitution and the ADCT by language-model sessions of the team, each
  given only a shard of the articles (text cut at 2,000 characters, 800 for the ADCT) and a
  brief: ``BRIEF.md`` for the lay ones (everyday words rather than the law's terms of art, a
  third typed informally, 3 to 8 questions by the article's length), ``BRIEF_FORMAL.md`` for
  two more in the law's own terms, as a civil servant or a lawyer asks. One line per article:
  ``{"id": "lei_8078_19900911|Art. 49", "questions": [...]}``.
* ``written/asked_conversations.jsonl`` — the law turns of the development conversation sets
  (written blind by sessions that saw only a brief and the laws), at most three per article
  (``from_conversations.py``; the frozen sets are never read).
* ``model_generated.jsonl`` — what the local 1.5B model wrote (``bench/doc2query.py``; its
  manifest ``model_generated.json``): two questions for each of the CDC's first 56 articles.

Each id is checked against the LexML CSVs of ``data/laws`` (an unknown id, an empty or overlong
question is an error naming the file and line); the articles' questions are joined, duplicates
dropped, and written by LexML URN with a manifest of where each came from::

    python data/laws/lay_questions/build.py
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from colmeia.rag.expansion import article_urn

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
OUT = ROOT / "src" / "colmeia" / "rag" / "index" / "data"
THESES = ROOT / "data" / "theses" / "questions"
CATALOGUE = ROOT / "data" / "theses" / "capes_resumos.csv"
MAX_CHARS = 250
_LABEL = re.compile(r"^[^,]+, (Art\. [^,]+)")


def _key(stem: str, label: str) -> str:
    return f"{stem}|{label.rstrip('.').strip()}"


def article_urns() -> tuple[dict[str, str], list[str]]:
    """``stem|Art. N`` → the article's URN, and the CSVs read."""
    out: dict[str, str] = {}
    files = sorted((ROOT / "data" / "laws").rglob("lexml/*.csv"))
    for path in files:
        with path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                label = _LABEL.match(row["Rotulo"])
                urn = article_urn(row.get("urn") or "")
                if label and urn:
                    out.setdefault(_key(path.stem, label.group(1)), urn)
    return out, [str(f.relative_to(ROOT)) for f in files]


def _passage_urns() -> set[str]:
    """Every passage's URN in the LexML CSVs of ``data/laws``."""
    out: set[str] = set()
    for path in sorted((ROOT / "data" / "laws").rglob("lexml/*.csv")):
        with path.open(encoding="utf-8", newline="") as fh:
            out.update(row["urn"] for row in csv.DictReader(fh) if row.get("urn"))
    return out


# How the questions name the norm they are about ("segundo a Lei 9.784/1999", "na LGPD", "pela
# constituição"). Dropped from what ships: a norm named is read by the assistant's scope rules
# (it filters the search), and left in a question it ties that question to every question about
# the norm — "o que diz o art. 49 da lei 9.784?" found the Lei 14.129 article whose question said
# "Lei 9.784/1999" instead of Art. 49. What is left says what the article is about.
_LEAD = (
    r"(?:(?:segundo|conforme|de acordo com|pel[ao]s?|d[aoe]s?|n[ao]s?|em)\s+)?"
    r"(?:(?:a|o)\s+)?"
)
_NUMBERED = (
    r"(?:lei complementar|decreto-lei|lei|lc)\s*(?:n[º°o]\.?\s*)?\d[\d.]*"
    r"(?:\s*/\s*\d{2,4}|,?\s+de\s+(?:\d{1,2}\s+de\s+\w+\s+de\s+)?\d{4})?"
)
_NAMES = (
    r"lgpd|cdc|lai|lindb|adct|"
    r"lei geral de prote[çc][ãa]o de dados(?: pessoais)?|"
    r"c[óo]digo de defesa do consumidor|"
    r"lei de acesso [àa] informa[çc][ãa]o|"
    r"lei das estatais|lei (?:geral )?de concess[õo]es|lei do governo digital|"
    r"lei de introdu[çc][ãa]o [àa]s normas do direito brasileiro|"
    r"lei do processo administrativo(?: federal)?|"
    r"constitui[çc][ãa]o(?: federal)?(?: de 1988| de 88)?|cf(?:/88)?"
)
_NORM = re.compile(rf"{_LEAD}\b(?:{_NUMBERED}|(?:{_NAMES})\b)", re.IGNORECASE)


def without_norm(question: str) -> str:
    """The question without the norm it names: "O que é legítimo interesse na LGPD?" → "O que
    é legítimo interesse?"."""
    text = _NORM.sub(" ", question)
    text = re.sub(r"\s+([?,.!;:])", r"\1", " ".join(text.split()))
    text = re.sub(r"[,;:]+(?=[?.!])|^[,;:\s]+|(?<=[?,.!;:])[,;:]+", "", text)
    return text.strip()


def _questions(raw: object, where: str) -> list[str]:
    if not isinstance(raw, list) or not raw:
        raise SystemExit(f"{where}: 'questions' must be a non-empty list")
    out = []
    for q in raw:
        text = " ".join(str(q).split())
        if not text or len(text) > MAX_CHARS:
            raise SystemExit(f"{where}: question {q!r} is empty or longer than {MAX_CHARS}")
        out.append(text)
    return out


def _rows(paths: list[Path]) -> Iterator[tuple[Path, str, dict[str, Any]]]:
    """Each JSON line of these files: its file, where it stands (for errors) and its row."""
    for path in paths:
        for n, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if line.strip():
                yield path, f"{path.relative_to(ROOT)} line {n}", json.loads(line)


def main() -> int:
    urns, inputs = article_urns()
    known = set(urns.values())
    table: dict[str, list[str]] = {}
    counts: dict[str, int] = {}

    def add(key: str, raw: object, where: str, kind: str) -> None:
        table.setdefault(key, []).extend(_questions(raw, where))
        counts[kind] = counts.get(kind, 0) + 1

    passages = _passage_urns()
    parts: list[tuple[str, list[str], list[str]]] = []
    for path, where, row in _rows(sorted((HERE / "written").glob("*.jsonl"))):
        stem, _, label = str(row.get("id", "")).partition("|")
        urn = urns.get(_key(stem, label))
        if urn is None:
            raise SystemExit(f"{where}: no article {row.get('id')!r} in data/laws")
        if "passages" in row:
            # a part of a long article (lay_more_N): its questions go to the passages they
            # were written from, not to the whole article
            named = [str(p) for p in row["passages"]]
            wrong = [p for p in named if p not in passages or p == urn or article_urn(p) != urn]
            if not named or wrong:
                raise SystemExit(f"{where}: passages {wrong or named!r} are not of {urn}")
            parts.append((urn, named, _questions(row.get("questions"), where)))
            counts["lay_more"] = counts.get("lay_more", 0) + 1
            continue
        add(urn, row.get("questions"), where, path.stem.split("_")[0])  # lay_N or formal_N
    for _, where, row in _rows([HERE / "model_generated.jsonl"]):
        if row.get("article") not in known:
            raise SystemExit(f"{where}: no article {row.get('article')!r}")
        add(row["article"], row.get("questions"), where, "model_generated")
    # The catalogue's works (data/theses/questions): named by their record id, as imported.
    from colmeia.apps.literature.records import read_csv

    titles = {r.id: r.title for r in read_csv(CATALOGUE)[0]}
    record_ids = list(titles)
    for _, where, row in _rows(sorted((THESES / "written").glob("*.jsonl"))):
        if row.get("id") not in titles:
            raise SystemExit(f"{where}: no work {row.get('id')!r} in {CATALOGUE.name}")
        # The title too: the questions were written in other words than the work's own, so
        # without it every other work's questions could match a query of the title's words
        # better than this work's — and lift them above the work the query names.
        add(row["id"], [titles[row["id"]], *row.get("questions", [])], where, "theses")
    order = {key: i for i, key in enumerate([*urns.values(), *record_ids])}
    rows = []
    for urn in sorted(table, key=lambda u: order[u]):
        # a question that was little more than the norm's name ("o que diz a LGPD?") goes
        questions = [q for q in map(without_norm, table[urn]) if len(q.split()) >= 3]
        questions = list(dict.fromkeys(questions))
        rows.append(json.dumps({"article": urn, "questions": questions}, ensure_ascii=False))
    for urn, named, raw in parts:
        questions = [q for q in map(without_norm, raw) if len(q.split()) >= 3]
        if questions:
            row = {"article": urn, "passages": named, "questions": list(dict.fromkeys(questions))}
            rows.append(json.dumps(row, ensure_ascii=False))
    body = "\n".join(rows) + "\n"
    (OUT / "lay_questions.jsonl").write_text(body, encoding="utf-8")
    manifest = {
        "built_by": "data/laws/lay_questions/build.py",
        "sources": {
            "lay": "data/laws/lay_questions/written/lay_*.jsonl, from each article's text "
            "alone by the team's language-model sessions (data/laws/lay_questions/BRIEF.md)",
            "formal": "data/laws/lay_questions/written/formal_*.jsonl, the same, in the law's "
            "own terms (data/laws/lay_questions/BRIEF_FORMAL.md)",
            "lay_more": "rows of written/*.jsonl with 'passages': a part of a long article's "
            "questions, for its own passages (none shipped: the written ones are kept in "
            "data/laws/lay_questions/parts/, measured worse; its README)",
            "asked": "data/laws/lay_questions/written/asked_conversations.jsonl, the law "
            "turns of the development conversation sets (blind, independent of the code), "
            "at most three per article (data/laws/lay_questions/from_conversations.py)",
            "model_generated": "data/laws/lay_questions/model_generated.jsonl, "
            "bench/doc2query.py with the local 1.5B model (model_generated.json)",
            "theses": "data/theses/questions/written/*.jsonl, a researcher's questions for "
            "each work of the catalogue from its title, keywords and abstract alone "
            "(data/theses/questions/BRIEF.md)",
        },
        "article_rows": counts,
        "articles": sum(
            1 for r in rows if r.startswith('{"article": "urn:') and '"passages"' not in r
        ),
        "article_parts": sum(1 for r in rows if '"passages"' in r),
        "works": sum(1 for r in rows if r.startswith('{"article": "rec:')),
        "articles_in_laws": len(known),
        "questions": sum(len(json.loads(r)["questions"]) for r in rows),
        "inputs": {
            f: hashlib.sha256((ROOT / f).read_bytes()).hexdigest()[:16]
            for f in [
                *inputs,
                "data/laws/lay_questions/BRIEF.md",
                "data/laws/lay_questions/BRIEF_FORMAL.md",
                "data/laws/lay_questions/BRIEF_MORE.md",
                "data/theses/capes_resumos.csv",
                "data/theses/questions/BRIEF.md",
            ]
        },
        "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
    }
    (OUT / "lay_questions.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    shown = ("articles", "article_parts", "articles_in_laws", "works", "questions")
    print(json.dumps({k: manifest[k] for k in shown}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
