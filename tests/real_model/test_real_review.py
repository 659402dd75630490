"""A literature review on a real model, read from the shipped sample thesis PDFs.

`colmeia review import` the CAPES catalogue with the five generated PDFs, then `colmeia review`
a question one of them answers best, with the local model reading each work. Invariants only: a
reading per work, through the model under the reading schema (or the extractive fallback, which
says why), every citation kept points at a passage the model was given, and on the work read
from its PDF every statement cites a passage with a printed page.

It is meant for `make test`'s real-model tier because a reading is bounded by design (at most four
passages of at most 110 words per work, an answer schema whose longest form fits the token
limit: see colmeia.apps.literature.model_passages and reading_schema). The import is lexical
(COLMEIA_EMBEDDINGS_MODEL=none): embedding 171 records and five PDFs with the offline e5 took
minutes on two busy cores, and this question's PDF ranks first lexically too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from local_model import REAL_MODEL, LocalModel
from shared_data import DATA_DIR

pytestmark = REAL_MODEL

QUESTION = "gênero e sexualidade na formação e na prática docente"


def _colmeia(*args: str, env: dict[str, str], cwd: Path, timeout: float = 600) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "colmeia", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("review")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env.update(COLMEIA_HOME=str(home), COLMEIA_EMBEDDINGS_MODEL="none")
    _colmeia(
        "review",
        "import",
        str(DATA_DIR / "theses" / "capes_resumos.csv"),
        "-c",
        "teses",
        "--pdfs",
        str(DATA_DIR / "theses" / "pdfs"),
        "--store",
        str(home / "teses.db"),
        env=env,
        cwd=home,
    )
    return home


# In the real-model tier of `make test`: three runs in a row on a quiet machine took 40-45 s each
# (two works read concurrently, ~35 s per reading on the 0.5B).
def test_a_review_read_by_the_model_cites_given_passages_and_pages(
    local_llm: LocalModel, library: Path
) -> None:
    out = library / "revisao.json"
    _colmeia(
        "review",
        QUESTION,
        "-c",
        "teses",
        "--top",
        # one work: its reading by the model is what only a real model shows; a second work
        # doubled the minutes (the extractive readings are tested offline)
        "1",
        "--out",
        str(out),
        "--store",
        str(library / "teses.db"),
        env=local_llm.env(
            COLMEIA_HOME=str(library),
            COLMEIA_EMBEDDINGS_MODEL="none",
            COLMEIA_LLM_TIMEOUT="300",
            COLMEIA_LLM_DEADLINE="300",
        ),
        cwd=library,
    )
    review = json.loads(out.read_text(encoding="utf-8"))
    shown = ("rank", "title", "mode", "seconds", "relevance", "why", "warnings")
    fields = ("summary", "objectives", "conclusions")
    for w in review["works"]:  # shown when it fails
        print(json.dumps({k: w[k] for k in (*shown, *fields)}, ensure_ascii=False))
        print([(p["id"], p["pages"], len(p["text"].split())) for p in w["passages"]])
    assert review["model"]
    works = review["works"]
    assert len(works) == 1
    # The question's best work is a sample PDF: read from its full text.
    full_text = [w for w in works if any(p["pages"] for p in w["passages"])]
    assert full_text and full_text[0]["rank"] == 1, [w["title"] for w in works]
    # A reading per work: by the model under the reading schema, or the extractive fallback,
    # which says why (never silent).
    for w in works:
        assert w["mode"].startswith("model:") or any(
            "the model failed" in x for x in w["warnings"]
        ), w
    read_by_model = [w for w in works if w["mode"].startswith("model:")]
    assert read_by_model, [w["warnings"] for w in works]
    for w in works:
        # What the model was given: a bounded prompt (saved as the work's passages).
        assert 1 <= len(w["passages"]) <= 4
        assert all(len(p["text"].split()) <= 110 for p in w["passages"])
        pages = {p["id"]: p["pages"] for p in w["passages"]}
        assert w["relevance"] in ("alta", "média", "baixa", "nenhuma")
        for name in ("summary", "objectives", "conclusions"):
            field = w[name]
            assert set(field["passages"]) <= set(pages), (name, field, list(pages))
            if field["text"].strip().lower().rstrip(".") == "não informado":
                assert field["passages"] == []
                continue
            # Every statement cites a passage it was given; on the PDF, a printed page.
            assert field["passages"], (w["title"], name, field)
            if w in full_text:
                assert all(pages[pid] for pid in field["passages"]), (w["title"], name)
