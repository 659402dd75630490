"""``make mutation``'s configuration stays true to the code: every module and test it names
exists, and every mutant marked equivalent still exists in its module and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
import run_mutation as rm

DIFF = """--- src/colmeia/apps/assistant/ids.py
+++ src/colmeia/apps/assistant/ids.py
@@ -1,5 +1,5 @@
 def _kind_label(kind: CaseKind | None) -> str:
-    if kind == "process":
+    if kind != "process":
         return "process number (TC/XXXXXX/YYYY)"
"""


def test_every_module_and_test_named_exists_and_names_are_unique() -> None:
    modules = rm.load_modules()  # raises naming any missing file
    names = [m.name for m in modules]
    assert len(names) == len(set(names))
    assert all(m.tests for m in modules)
    assert all(m.timeout > 0 for m in modules)


@pytest.mark.parametrize("table", ["mutant", "accepted"])
def test_every_equivalent_or_accepted_mutant_has_a_reason_and_still_matches_its_module(
    table: str,
) -> None:
    modules = {m.name: m for m in rm.load_modules()}
    for e in rm.load_equivalents(table=table):
        assert e.module in modules, f"{e.module!r} is not in modules.toml"
        assert len(e.reason.split()) >= 4, f"say why {e.before!r} -> {e.after!r} is equivalent"
        source = " ".join((rm.ROOT / modules[e.module].path).read_text(encoding="utf-8").split())
        for line in e.before.split(" / "):
            assert line in source, f"{e.module}: {line!r} is no longer in the code; drop the entry"


def test_a_survivor_is_matched_to_an_equivalent_by_function_and_changed_lines() -> None:
    name = "colmeia.apps.assistant.ids.x__kind_label__mutmut_1"
    assert rm.function_of(name) == "_kind_label"
    assert rm.function_of("colmeia.service.jobs.xǁJobStoreǁclaim__mutmut_7") == "JobStore.claim"
    assert rm.changed_lines(DIFF) == ('if kind == "process":', 'if kind != "process":')
    known = [
        rm.Equivalent("ids", "_kind_label", 'if kind == "process":', 'if kind != "process":', "x")
    ]
    assert rm.match_equivalent("ids", name, DIFF, known) == known[0]
    assert rm.match_equivalent("numbers", name, DIFF, known) is None
    other = DIFF.replace('+    if kind != "process":', '+    if kind == "XXprocessXX":')
    assert rm.match_equivalent("ids", name, other, known) is None


def test_the_mutants_of_named_functions_are_matched_by_their_mutmut_names() -> None:
    module = rm.Module("jobs", "src/colmeia/service/jobs.py", ["t.py"], 60)
    globs = rm.mutant_globs(module, ["_claim", "JobStore.claim"])
    assert globs == [
        "colmeia.service.jobs.x__claim__mutmut_*",
        "colmeia.service.jobs.xǁJobStoreǁclaim__mutmut_*",
    ]
    # each pattern names its function's mutants and no other function's
    import fnmatch

    assert fnmatch.fnmatch("colmeia.service.jobs.x__claim__mutmut_12", globs[0])
    assert not fnmatch.fnmatch("colmeia.service.jobs.x__claim_all__mutmut_1", globs[0])
    assert rm.function_of("colmeia.service.jobs.xǁJobStoreǁclaim__mutmut_3") == "JobStore.claim"
    assert fnmatch.fnmatch("colmeia.service.jobs.xǁJobStoreǁclaim__mutmut_3", globs[1])


TESTS_BY_MUTANT = """
import os, time

def test_it():
    mutant = os.environ.get("MUTANT_UNDER_TEST", "")
    if mutant.endswith("hangs"):
        time.sleep(300)
    assert not mutant.endswith("fails")
"""


def test_a_timeout_is_scored_by_a_run_alone_hang_fail_or_pass(tmp_path: Path) -> None:
    # mutmut's forked workers can hang for a reason of the fork's, not the mutant's: a
    # timeout only counts as a kill when the mutant's tests also hang (or fail) run alone
    (tmp_path / "mutants" / "tests").mkdir(parents=True)
    (tmp_path / "mutants" / "tests" / "test_by_mutant.py").write_text(TESTS_BY_MUTANT)
    module = rm.Module("m", "src/m.py", ["tests/test_by_mutant.py"], 60)
    mutants = [rm.Mutant(f"m.x_f__{how}", "timeout") for how in ("hangs", "fails", "passes")]
    mutants.append(rm.Mutant("m.x_f__killed", "killed"))
    # the runs that end get all the time a pytest start needs on loaded cores (over 25 s
    # seen); the hang is stopped after 5 s either way
    rm.recheck_timeouts(module, tmp_path, mutants[1:], limit=180)
    rm.recheck_timeouts(module, tmp_path, mutants[:1], limit=5)
    assert [m.status for m in mutants] == ["timeout", "killed", "survived", "killed"]
    assert [m.rechecked for m in mutants] == [True, True, True, False]
    # the verdicts are kept: a report-only pass does not run the tests again
    (tmp_path / "mutants" / "tests" / "test_by_mutant.py").write_text("x = (")
    again = [rm.Mutant(f"m.x_f__{how}", "timeout") for how in ("hangs", "fails", "passes")]
    rm.recheck_timeouts(module, tmp_path, again, limit=5)
    assert [m.status for m in again] == ["timeout", "killed", "survived"]


def _has_logic(path: Path) -> bool:
    """A module defines a function or a class (an ``__init__`` that only re-exports has none)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for n in tree.body
    )


def test_every_module_of_the_package_is_mutated_or_excluded_with_a_reason() -> None:
    import tomllib

    data = tomllib.loads(rm.MODULES_FILE.read_text(encoding="utf-8"))
    mutated = {m["path"] for m in data["module"]}
    excluded = {e["path"]: e.get("reason", "") for e in data.get("excluded", [])}
    assert not mutated & excluded.keys(), "a module is both mutated and excluded"
    assert all(len(r.split()) >= 4 for r in excluded.values()), "say why a module is excluded"
    package = sorted((rm.ROOT / "src" / "colmeia").rglob("*.py"))
    with_logic = {
        str(p.relative_to(rm.ROOT)) for p in package if p.name != "__init__.py" or _has_logic(p)
    }
    unlisted = sorted(with_logic - mutated - excluded.keys())
    assert unlisted == [], "add these to modules.toml (discover_modules.py proposes entries)"
    gone = sorted((mutated | excluded.keys()) - {str(p.relative_to(rm.ROOT)) for p in package})
    assert gone == []


def test_a_shard_is_a_balanced_share_and_the_shares_are_the_whole() -> None:
    modules = [rm.Module(f"m{i}", "p", ["t"], t) for i, t in enumerate([900, 600, 300, 300, 100])]
    shares = [rm.shard(modules, i, 2) for i in (1, 2)]
    assert sorted(m.name for s in shares for m in s) == sorted(m.name for m in modules)
    assert [sum(m.timeout for m in s) for s in shares] == [
        1200,
        1000,
    ]  # longest first, each to the lightest share
    assert rm.shard(modules, 1, 1) == modules


def test_new_tests_reopen_the_verdicts_they_could_change_and_keep_the_kills(
    tmp_path: Path,
) -> None:
    import json

    meta = tmp_path / "m.py.meta"
    codes = {"a": 1, "b": 0, "c": 33, "d": 36, "e": 37, "f": None, "g": -9}
    meta.write_text(json.dumps({"exit_code_by_key": codes, "hash_by_function_name": {}}))
    assert rm.reopen_verdicts(meta) == 3
    after = json.loads(meta.read_text())["exit_code_by_key"]
    assert after == {"a": 1, "b": None, "c": None, "d": None, "e": 37, "f": None, "g": -9}
