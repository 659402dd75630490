"""The test suite itself: any set of test folders collects in one pytest call.

Test folders are not packages, so pytest imports each folder's ``conftest.py`` under the one
module name ``conftest`` and puts each folder on ``sys.path``. A test module that imports
helpers ``from conftest`` then gets whichever folder's conftest was loaded last (this is how
``tests/apps/moderation`` and ``tests/service`` could not run together), and two helper modules
with the same file name shadow each other the same way. Helpers live in uniquely named modules.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).parent


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
    return names


def test_no_test_module_imports_helpers_from_a_conftest() -> None:
    offenders = [
        str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py") if "conftest" in _imported_modules(p)
    ]
    assert offenders == [], (
        f"move these helpers out of conftest.py into a named module: {offenders}"
    )


def test_every_importable_test_module_name_is_unique_across_folders() -> None:
    where: defaultdict[str, list[str]] = defaultdict(list)
    for path in TESTS.rglob("*.py"):
        if path.name != "conftest.py" and "__pycache__" not in path.parts:
            where[path.stem].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in where.items() if len(paths) > 1}
    assert clashes == {}, f"two modules share a name (one shadows the other): {clashes}"
