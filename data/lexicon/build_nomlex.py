"""Build ``src/colmeia/apps/assistant/data/nomlex_pt.tsv`` from NomLex-PT.

NomLex-PT (the verb ↔ noun nominalizations of OpenWordNet-PT: "intervir" ↔ "intervenção",
"recorrer" ↔ "recurso", "extinguir" ↔ "extinção") is part of github.com/own-pt/openWordnet-PT,
licensed CC BY 4.0 (attribution in ``data/lexicon/README.md``). Run from a checkout of that
repository's ``data/own-pt-morphosemantic-links.ttl``::

    python data/lexicon/build_nomlex.py path/to/own-pt-morphosemantic-links.ttl

Only pairs whose two words do not already meet after colmeia's stemming are kept ("alterar" /
"alteração" stem alike and need no entry). Nothing is downloaded at run time.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from colmeia.apps.assistant.relations import content_terms

OUT = Path(__file__).resolve().parents[2] / "src/colmeia/apps/assistant/data/nomlex_pt.tsv"
_PAIR = re.compile(
    r"owns:noun own-pt:word-(?P<noun>[^\s;.]+)-n\b.*?owns:verb own-pt:word-(?P<verb>[^\s;.]+)-v\b",
    re.DOTALL,
)


def pairs(ttl: str) -> list[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for block in ttl.split("\n\n"):
        if "owns:Nominalization" not in block or "owns:Agentive" in block:
            continue
        m = _PAIR.search(block)
        if m is None:
            continue
        verb, noun = m.group("verb").lower(), m.group("noun").lower()
        if "_" in verb or "_" in noun:  # multi-word entries
            continue
        v, n = content_terms(verb), content_terms(noun)
        if len(v) == 1 and len(n) == 1 and v != n:
            found.add((verb, noun))
    return sorted(found)


def main() -> None:
    ttl = Path(sys.argv[1]).read_text(encoding="utf-8")
    rows = pairs(ttl)
    header = (
        "# NomLex-PT verb/noun nominalizations (OpenWordNet-PT, CC BY 4.0,"
        " github.com/own-pt/openWordnet-PT commit d648464a7803b0574629549b9c0b49809185a319,"
        " data/own-pt-morphosemantic-links.ttl); pairs whose stems differ, agent nouns left out;"
        " built by data/lexicon/build_nomlex.py\n"
    )
    OUT.write_text(header + "".join(f"{v}\t{n}\n" for v, n in rows), encoding="utf-8")
    print(f"{len(rows)} pairs -> {OUT}")


if __name__ == "__main__":
    main()
