"""Lay questions people asked in the development conversation sets, for the articles they asked.

The blind conversation sets (``src/colmeia/apps/assistant/data/independent*``) were written by
sessions that saw only the brief and the law texts; their law turns are what citizens, servants
and lawyers ask, in their words, with the article that answers. The **development** sets' law
turns become questions of those articles (``written/asked_conversations.jsonl``), indexed like
the others by ``build.py``. The frozen sets are never read here: they measure what this adds.

A turn that leans on the thread ("e da pra prorrogar esse prazo?", "e o inciso 55?") says
nothing alone and is left out: only a first turn, or one of at least eight words that does not
open with "e"; so is one that names its article ("oq diz o art 5 inciso 33"), which the parser
reads, not the words.

    python data/laws/lay_questions/from_conversations.py   # then build.py and the vector seed
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SETS = ROOT / "src" / "colmeia" / "apps" / "assistant" / "data"
OUT = HERE / "written" / "asked_conversations.jsonl"

# Development sets only (docs/assistant.md): independent5, 17 and 18 are frozen test sets.
DEVELOPMENT = (
    "independent4",
    "independent6",
    "independent7",
    "independent8",
    "independent9",
    "independent10",
    "independent11",
    "independent12",
    "independent13",
    "independent14",
    "independent15",
    "independent16",
)
# the sets' law codes (brief: "9784:59", "CF:37", "ADCT:19") to the LexML file stems
STEMS = {
    "CF": "constituicao_1988_19881005",
    "1988": "constituicao_1988_19881005",
    "ADCT": "adct_1988_19881005",
    "4657": "decreto_lei_4657_19420904",
    "95": "lei_complementar_95_19980226",
    "8078": "lei_8078_19900911",
    "8987": "lei_8987_19950213",
    "9784": "lei_9784_19990129",
    "12527": "lei_12527_20111118",
    "13303": "lei_13303_20160630",
    "13709": "lei_13709_20180814",
    "14129": "lei_14129_20210329",
}
# At most this many per article, the shortest (the least story around the question): the
# articles people ask most would otherwise gather a dozen, and a question's best match among
# many pulls its neighbours' questions to it (LGPD Art. 18 over Arts. 19 and 8).
PER_ARTICLE = int(os.environ.get("ASKED_PER_ARTICLE", "3"))
_THREAD = re.compile(r"^\s*e\b", re.IGNORECASE)
# "o que diz o art 37 inciso 2?": the article named is read from the words by the parser
_NAMES_ARTICLE = re.compile(r"\bart(?:igo|s)?\b\.?\s*\d", re.IGNORECASE)


def article_label(article: str) -> str:
    """``"6"`` → ``"Art. 6º"`` (LexML writes ordinals up to nine), ``"37"`` → ``"Art. 37"``."""
    number = re.match(r"\d+", article)
    if number is None:
        raise ValueError(f"article {article!r} has no number")
    rest = article[number.end() :]
    n = int(number.group())
    return f"Art. {n}º{rest}" if n < 10 else f"Art. {n}{rest}"


def stands_alone(question: str, first: bool) -> bool:
    """Whether the question says what it asks on its own words: not a follow-up leaning on
    the thread, not an article named by its number."""
    if _NAMES_ARTICLE.search(question):
        return False
    return first or (len(question.split()) >= 8 and not _THREAD.match(question))


def main() -> int:
    table: dict[str, list[str]] = {}
    for name in DEVELOPMENT:
        for path in sorted((SETS / name).glob("conversations_*.json")):
            data = json.loads(path.read_text("utf-8"))
            for conv in data["conversations"]:
                for n, turn in enumerate(conv["turns"]):
                    expect = turn.get("expect", {})
                    if expect.get("kind") != "law" or not expect.get("article"):
                        continue
                    question = " ".join(str(turn["user"]).split())
                    if not stands_alone(question, n == 0) or len(question) > 250:
                        continue
                    law, _, article = str(expect["article"]).partition(":")
                    if law not in STEMS:
                        print(f"{path.name} {conv['id']}: unknown law {law!r}", file=sys.stderr)
                        continue
                    key = f"{STEMS[law]}|{article_label(article)}"
                    if question not in table.setdefault(key, []):
                        table[key].append(question)
    for key, questions in table.items():
        table[key] = sorted(questions, key=len)[:PER_ARTICLE]
    with OUT.open("w", encoding="utf-8") as fh:
        for key in sorted(table):
            fh.write(json.dumps({"id": key, "questions": table[key]}, ensure_ascii=False) + "\n")
    print(f"{sum(map(len, table.values()))} questions for {len(table)} articles -> {OUT.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
