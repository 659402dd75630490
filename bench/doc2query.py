"""Generate lay-style questions for each article of the shipped legal collection (doc2query).

Lay questions use everyday words ("quanto tempo tenho pra devolver"); the articles use the
law's ("direito de arrependimento", "prazo de reflexão"). A local model reads each article
and writes the questions a citizen would ask that it answers; they are shipped as data
(``colmeia/rag/index/data/lay_questions.jsonl``, through ``data/laws/lay_questions/build.py``)
and indexed as an expansion field of the article's passages (:mod:`colmeia.rag.expansion`), so a lay question matching an article's
generated questions lifts the article. No evaluation question is read here: the only inputs
are the LexML CSVs of ``data/laws`` and the prompt below. The output goes to
``data/laws/lay_questions/model_generated.jsonl``; ``python data/laws/lay_questions/build.py``
joins it with the questions written there from each article's text and ships the result.

Run with a model served on loopback (docs/model-layer.md)::

    colmeia llm serve --gguf qwen2.5-coder-1.5b-instruct --port 18400 --poll 0 &
    python bench/doc2query.py --base-url http://127.0.0.1:18400/v1

Greedy decoding (temperature 0, fixed seed) over fixed inputs. The output is appended one
article at a time and articles already in it are skipped, so a run that stops is continued by
running it again. The manifest beside it (``lay_questions.json``) records the model, the
settings, the prompt, the inputs' hashes and how long the articles took. Prints ONE JSON line.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "laws" / "lay_questions" / "model_generated.jsonl"
# The laws in the order they are generated: those citizens ask about most first (consumer,
# data protection, administrative procedure, access to information), the Constitution last;
# a run cut short leaves the rest for the next.
ORDER = (
    "lei_8078",
    "lei_13709",
    "lei_9784",
    "lei_12527",
    "lei_13303",
    "lei_8987",
    "decreto_lei_4657",
    "lei_14129",
    "lei_complementar_95",
    "constituicao_1988",
    "adct_1988",
)
SYSTEM = (
    "Você ajuda a indexar leis brasileiras. Leia o artigo e escreva 2 perguntas curtas (no "
    "máximo 12 palavras cada), diferentes entre si, que um cidadão comum sem formação jurídica "
    "faria e que este artigo responde. Use as palavras do dia a dia (como as pessoas falam: "
    "'posso', 'quanto tempo', 'o que acontece se', 'tenho direito'), não os termos técnicos do "
    "texto, e não cite o número do artigo nem da lei. Responda só com JSON: "
    '{"perguntas": ["...", "..."]}'
)
# Greedy decoding. The output is what a busy CPU pays for (about 2.5 tokens a second for the
# 1.5B on two shared cores, batched or not), so two short questions per article.
SETTINGS: dict[str, Any] = {
    "temperature": 0,
    "seed": 7,
    "max_tokens": 90,
    "response_format": {"type": "json_object"},
}
QUESTIONS = 2
# The article as the model reads it: its opening says what it is about; each token of the
# prompt costs about a tenth of a generated one.
MAX_CHARS = 500
_PREFIX = re.compile(r"^\[[^\]]*\]\s*")
_ARTICLE = re.compile(r"^(.*!art[^_]+)")
_NUMBER = re.compile(r"^Art\.\s*[\w\-º°]+\.?\s*")
_QUOTED = re.compile(r'"([^"{}\[\]]{8,200}\?)')
_REPEALED = re.compile(r"^\s*(?:\(\s*)?(?:revogad|vetad)", re.IGNORECASE)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sources(data: Path) -> list[Path]:
    files = sorted((data / "laws" / "lexml").glob("*.csv"))
    files += sorted((data / "laws" / "constituicao" / "lexml").glob("*.csv"))

    def rank(p: Path) -> int:
        return next((i for i, o in enumerate(ORDER) if p.name.startswith(o)), len(ORDER))

    return sorted(files, key=lambda p: (rank(p), p.name))


def articles(path: Path) -> list[tuple[str, str]]:
    """(article URN, its text) in the file's order; repealed dispositivos left out."""
    texts: dict[str, list[str]] = {}
    whole: dict[str, str] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            match = _ARTICLE.match(row.get("urn", ""))
            text = _PREFIX.sub("", row.get("Texto", "")).strip()
            if not match or not text or _REPEALED.match(text):
                continue
            if row.get("Tipo") == "ART":  # the whole article in one row, where the file has it
                body = _NUMBER.sub("", text)
                if not _REPEALED.match(body):
                    whole[match.group(1)] = body
            texts.setdefault(match.group(1), []).append(text)
    return [(urn, whole.get(urn, " ".join(parts))[:MAX_CHARS]) for urn, parts in texts.items()]


def parse(content: str) -> list[str]:
    """The questions of the model's reply (at most ``QUESTIONS``): the JSON's list, or, when
    the reply is not JSON (cut at the token limit, another key), every quoted question in it."""
    try:
        reply = json.loads(content)
    except json.JSONDecodeError:
        reply = None
    raw = next(iter(reply.values()), None) if isinstance(reply, dict) and reply else None
    items = raw if isinstance(raw, list) else _QUOTED.findall(content)
    out: list[str] = []
    for item in items:
        text = " ".join(str(item).split())
        if 8 <= len(text) <= 200 and text not in out:
            out.append(text)
    return out[:QUESTIONS]


def generate(client: httpx.Client, base_url: str, model: str, text: str) -> list[str]:
    body = {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": text},
        ],
        **SETTINGS,
    }
    response = client.post(f"{base_url}/chat/completions", json=body, timeout=600)
    response.raise_for_status()
    return parse(str(response.json()["choices"][0]["message"]["content"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:18400/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--gguf", default="", help="the served GGUF file, to record its hash")
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--parallel", type=int, default=8, help="the server's slots")
    parser.add_argument("--minutes", type=float, default=0.0, help="stop after this long")
    parser.add_argument(
        "--manifest-only", action="store_true", help="write the manifest, generate nothing"
    )
    args = parser.parse_args(argv)
    done: set[str] = set()
    if args.out.exists():
        # an article whose reply gave no question is asked again
        kept = [
            line
            for line in args.out.read_text(encoding="utf-8").splitlines()
            if json.loads(line)["questions"]
        ]
        args.out.write_text("".join(f"{line}\n" for line in kept), encoding="utf-8")
        done.update(json.loads(line)["article"] for line in kept)
    files = sources(args.data)
    todo = [(urn, text) for f in files for urn, text in articles(f) if urn not in done]
    started = time.monotonic()
    made = 0
    # As many requests in flight as the server has slots: llama.cpp decodes them as one batch,
    # and a CPU decodes a batch of 8 nearly as fast as one sequence.
    with (
        httpx.Client() as client,
        args.out.open("a", encoding="utf-8") as out,
        ThreadPoolExecutor(args.parallel) as pool,
    ):
        for start in range(0, 0 if args.manifest_only else len(todo), args.parallel):
            if args.minutes and time.monotonic() - started > args.minutes * 60:
                break
            batch = todo[start : start + args.parallel]
            replies = pool.map(
                lambda item: generate(client, args.base_url, args.model, item[1]), batch
            )
            for (urn, _), questions in zip(batch, replies, strict=True):
                row = {"article": urn, "questions": questions}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                made += 1
            out.flush()
    seconds = time.monotonic() - started
    manifest_path = args.out.with_suffix(".json")
    manifest: dict[str, Any] = (
        json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
    )
    runs = [*manifest.get("runs", []), {"articles": made, "seconds": round(seconds, 1)}]
    total = sum(len(articles(f)) for f in files)
    manifest = {
        "generator": "bench/doc2query.py",
        "model": args.model,
        "gguf_sha256": manifest.get("gguf_sha256")
        or (_sha256(Path(args.gguf)) if args.gguf else ""),
        "server": "colmeia llm serve (llama.cpp via xllamacpp), 127.0.0.1",
        "settings": SETTINGS,
        "system_prompt": SYSTEM,
        "max_article_chars": MAX_CHARS,
        "inputs": {str(f.relative_to(ROOT)): _sha256(f) for f in files},
        "order": list(ORDER),
        "articles_total": total,
        "articles_done": len(done) + made,
        "runs": runs,
    }
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", "utf-8")
    print(
        json.dumps(
            {
                "made": made,
                "seconds": round(seconds, 1),
                "per_article_s": round(seconds / made, 1) if made else None,
                "done": len(done) + made,
                "total": total,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
