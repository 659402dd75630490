"""Every command imports only what it runs: a lexical search loads neither the model client
(aiohttp), nor FAISS, nor LangGraph. Checked in a fresh process on a small store (the time it
takes is measured by bench/cli_startup.py, not asserted here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HEAVY = ("aiohttp", "faiss", "langgraph", "colmeia.llm.openai_compat", "jinja2")

SEARCH_AND_LIST_MODULES = """
import sys
from colmeia.cli import main
sys.argv = ["colmeia", "search", "prazo de reclamação", "-c", "leis"]
try:
    main()
except SystemExit as exc:
    code = exc.code
print("MODULES", " ".join(sorted(sys.modules)))
"""


def test_a_lexical_search_imports_no_model_client_faiss_or_langgraph(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLMEIA_")}
    env["COLMEIA_HOME"] = str(tmp_path / "home")
    doc = tmp_path / "cdc.txt"
    doc.write_text(
        "Art. 26. O direito de reclamar pelos vícios aparentes caduca em trinta dias.\n",
        encoding="utf-8",
    )
    ingest = subprocess.run(
        [sys.executable, "-m", "colmeia", "ingest", str(doc), "-c", "leis"],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert ingest.returncode == 0, ingest.stderr
    out = subprocess.run(
        [sys.executable, "-c", SEARCH_AND_LIST_MODULES],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert "trinta dias" in out.stdout, out.stderr
    modules = out.stdout.rsplit("MODULES", 1)[1].split()
    loaded = sorted({h for h in HEAVY for m in modules if m == h or m.startswith(h + ".")})
    assert loaded == []
