"""Build ``src/colmeia/apps/assistant/data/ownpt_synonyms.tsv`` from OpenWordNet-PT's synsets.

OpenWordNet-PT (github.com/own-pt/openWordnet-PT; attribution and licence in
``data/lexicon/README.md``) groups Portuguese words that share a sense into synsets: "anúncio",
"propaganda", "publicidade"; "restituição", "retorno". Its lemma list in the Open Multilingual
Wordnet's format (``openMLWN/wn-data-por.tab``: synset, ``lemma``, word) is read here, and a
synset is kept only when

* at least one of its one-word lemmas occurs in the shipped legal corpus (the CSVs of
  ``data/laws/lexml`` and ``data/laws/constituicao/lexml``): the assistant only ever adds a
  word the collection uses, so a synset none of whose words the law uses could add nothing;
* it still has two lemmas whose stems differ under colmeia's Portuguese stemmer
  ("alterar" / "alteração" meet already).

One synset a line, its one-word lemmas separated by tabs (multi-word lemmas are left out; the
lookup is word by word). Run from a checkout of the repository at the commit named below::

    git -C openWordnet-PT show e0fe401f802ff78594e736d1c22fd561a7883584:openMLWN/wn-data-por.tab \\
        > wn-data-por.tab
    python data/lexicon/build_synonyms.py wn-data-por.tab

Nothing is downloaded at run time.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from colmeia.apps.assistant.relations import content_terms

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "src/colmeia/apps/assistant/data/ownpt_synonyms.tsv"
CORPUS = [ROOT / "data/laws/lexml", ROOT / "data/laws/constituicao/lexml"]
COMMIT = "e0fe401f802ff78594e736d1c22fd561a7883584"


def corpus_stems(folders: list[Path]) -> set[str]:
    """The stems of every word of the shipped laws' dispositivos."""
    csv.field_size_limit(sys.maxsize)
    stems: set[str] = set()
    for folder in folders:
        for path in sorted(folder.glob("*.csv")):
            with path.open(encoding="utf-8", newline="") as fh:
                for row in csv.DictReader(fh):
                    stems.update(content_terms(row.get("Texto") or ""))
    return stems


def synsets(tab: str) -> dict[str, list[str]]:
    """Synset id → its one-word lemmas, lower case, in file order, once each."""
    out: dict[str, list[str]] = {}
    for line in tab.splitlines():
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 3 or parts[1] != "lemma":
            continue
        word = parts[2].strip().lower()
        if not word or "_" in word or " " in word or not word.replace("-", "").isalpha():
            continue
        words = out.setdefault(parts[0], [])
        if word not in words:
            words.append(word)
    return out


def keep(groups: dict[str, list[str]], stems: set[str]) -> list[list[str]]:
    """The synsets (as word lists) with a word of the corpus and two stems that differ."""
    rows: list[list[str]] = []
    for synset in sorted(groups):
        words = groups[synset]
        terms = [content_terms(w) for w in words]
        # one content word each (no stop words: "ser", "ter" are dropped by the analyser)
        pairs = [(w, t[0]) for w, t in zip(words, terms, strict=True) if len(t) == 1]
        if len({t for _, t in pairs}) < 2 or not any(t in stems for _, t in pairs):
            continue
        seen: set[str] = set()
        row = []
        for w, t in pairs:
            if t not in seen:  # one word a stem: "multa" and "multas" say the same
                seen.add(t)
                row.append(w)
        rows.append(row)
    return rows


def main() -> None:
    tab = Path(sys.argv[1]).read_text(encoding="utf-8")
    rows = keep(synsets(tab), corpus_stems(CORPUS))
    header = (
        "# OpenWordNet-PT synsets (github.com/own-pt/openWordnet-PT, CC BY 4.0; commit"
        f" {COMMIT}, openMLWN/wn-data-por.tab): one synset a line, its one-word lemmas;"
        " only synsets with a word of the shipped laws and two stems that differ;"
        " built by data/lexicon/build_synonyms.py\n"
    )
    OUT.write_text(header + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} synsets -> {OUT}")


if __name__ == "__main__":
    main()
