"""Propose ``modules.toml`` entries for the modules of ``src/colmeia`` that have none yet.

A module's tests are the test files that name it: its dotted path (``colmeia.rag.ingest.clean``)
or one of its public names imported from its package. The proposal is a start to edit, not a
verdict: trim a list to the tests that really reach the module (mutmut runs them all per
mutant), and move a module without logic to ``[[excluded]]`` with the reason.

Usage: ``python tests/mutation/discover_modules.py`` prints the TOML to append.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
MAX_TESTS = 6


def dotted(path: Path) -> str:
    return ".".join(path.relative_to(SRC).with_suffix("").parts)


def public_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        is_def = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        if is_def and not node.name.startswith("_"):
            names.add(node.name)
    return names


def tests_for(path: Path, test_texts: dict[str, str]) -> list[str]:
    name = dotted(path)
    package = name.rsplit(".", 1)[0]
    names = public_names(path)
    scored: list[tuple[int, int, str]] = []
    for test, text in test_texts.items():
        score = 0
        if re.search(rf"\b{re.escape(name)}\b", text):
            score += 3
        words: set[str] = set()
        for pkg in {package, package.rsplit(".", 1)[0]}:
            for paren, line in re.findall(
                rf"from {re.escape(pkg)} import (?:\(([^)]*)\)|([^\n]*))", text
            ):
                words |= {w.split(" as ")[0].strip() for w in (paren or line).split(",")}
        if names & words:
            score += 2
        if path.stem in Path(test).stem:
            score += 1
        if score:
            scored.append((-score, len(text), test))
    return [t for _, _, t in sorted(scored)[:MAX_TESTS]]


def main() -> int:
    data = tomllib.loads((ROOT / "tests/mutation/modules.toml").read_text(encoding="utf-8"))
    have = {m["path"] for m in data.get("module", [])} | {
        e["path"] for e in data.get("excluded", [])
    }
    test_texts = {
        str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "tests").rglob("test_*.py"))
        if "real_model" not in p.parts and "mutation" not in p.parts
    }
    out: list[str] = []
    for path in sorted((SRC / "colmeia").rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        if rel in have or path.name == "__init__.py":
            continue
        tests = tests_for(path, test_texts)
        name = dotted(path).removeprefix("colmeia.").replace(".", "_")
        if not tests:
            out.append(f'\n[[excluded]]\npath = "{rel}"\nreason = "no test names it yet"\n')
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        timeout = 600 if lines < 150 else 1200 if lines < 400 else 2400
        listed = ", ".join(f'"{t}"' for t in tests)
        out.append(
            f'\n[[module]]\nname = "{name}"\npath = "{rel}"\ntests = [{listed}]\n'
            f"timeout = {timeout}\n"
        )
    sys.stdout.write("".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
