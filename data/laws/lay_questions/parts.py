"""Cut the parts of long articles past their first 2,000 characters (800 for the ADCT) into
items for the writers of ``written/lay_more_N.jsonl`` (``BRIEF_MORE.md``).

The first writers saw each article cut at 2,000 characters, so the later incisos and
paragraphs of a long article (the Constitution's Art. 5º, the LGPD's definitions) had no
questions of their own. Each article's passages (its caput, paragraphs, incisos and alíneas;
not the row that repeats the whole article) are joined one per line, the text past the cut is
split at line ends into items of about 1,800 characters, and each item is written with the
passages it holds, so the questions written for it go to those passages
(``colmeia.rag.expansion``)::

    python data/laws/lay_questions/parts.py OUT_DIR [--shards 4]

writes ``OUT_DIR/input_N.txt`` (what a writer reads) and ``OUT_DIR/passages_N.jsonl`` (the
passages of each item, in the same order: join them to the writer's lines by position).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_LABEL = re.compile(r"^([^,]+), (Art\. [^,]+)(?:, (.*))?$")
_HEAD = re.compile(r"^\[[^\]]*\]\s*")
WINDOW = 1800
# shorter than this, an item is a tail of the article, not a part worth asking about
LEAST = 120


def articles() -> dict[str, list[tuple[str, str]]]:
    """``stem|Art. N`` → its passages as (one line of text, passage URN), in order."""
    out: dict[str, list[tuple[str, str]]] = {}
    for path in sorted((ROOT / "data" / "laws").rglob("lexml/*.csv")):
        with path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                label = _LABEL.match(row["Rotulo"])
                if not label or not label.group(3):
                    continue  # not an article's passage, or the row of the whole article
                part = label.group(3).replace("caput, ", "").replace("caput", "").strip()
                text = " ".join(_HEAD.sub("", row["Texto"]).split())
                key = f"{path.stem}|{label.group(2).rstrip('.').strip()}"
                out.setdefault(key, []).append((f"{part}: {text}" if part else text, row["urn"]))
    return out


def items() -> list[tuple[str, str, list[str]]]:
    """(article id, the item's text, its passages) for every part past an article's cut."""
    out: list[tuple[str, str, list[str]]] = []
    for key, passages in articles().items():
        cut = 800 if key.startswith("adct") else 2000
        done, window, urns, size = 0, [], [], 0
        for line, urn in passages:
            done += len(line) + 1
            if done <= cut:
                continue
            if size + len(line) > WINDOW and window:
                out.append((key, "\n".join(window), urns))
                window, urns, size = [], [], 0
            window.append(line)
            urns.append(urn)
            size += len(line) + 1
        if window and size > LEAST:
            out.append((key, "\n".join(window), urns))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--shards", type=int, default=4)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    cut = items()
    per = -(-len(cut) // args.shards)
    for n in range(args.shards):
        shard = cut[n * per : (n + 1) * per]
        with (args.out / f"input_{n}.txt").open("w", encoding="utf-8") as text:
            for key, body, _ in shard:
                text.write(f"### id: {key}\nQuestions to write: 4\n{body}\n\n")
        with (args.out / f"passages_{n}.jsonl").open("w", encoding="utf-8") as fh:
            for key, _, urns in shard:
                fh.write(json.dumps({"id": key, "passages": urns}, ensure_ascii=False) + "\n")
    print(f"{len(cut)} items in {args.shards} shards: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
