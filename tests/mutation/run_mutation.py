"""``make mutation``: mutmut over the modules where a bug costs most, one module at a time.

Each module listed in ``modules.toml`` is mutated alone, in its own work folder under
``reports/mutation/work/<name>/`` (a copy of ``src``, ``tests`` and ``data`` with a
``pyproject.toml`` that tells mutmut which file to mutate and which tests exercise it). mutmut
records which of those tests reach each function, and runs only them against each mutant, in
forked workers. A module that takes longer than its time limit is stopped and reported as such.

A mutant mutmut scores as a timeout is run once more, alone, in a fresh process (its module's
tests with the mutant switched on, no fork): a hang in mutmut's forked workers can come from
the fork rather than the mutant (a thread of the parent's missing in the child), and would
otherwise count as a kill. It is a timeout only if it hangs alone too; if its tests fail it is
killed, and if they pass it is a survivor. The verdicts are kept in the module's work folder
(``recheck.json``), so ``--report-only`` does not run them again.

Afterwards the survivors are matched against ``equivalent.toml``: ``[[mutant]]`` entries cannot
change behaviour (each with a reason; left out of the score), ``[[accepted]]`` entries can but
are accepted for a stated reason (a log line's wording, say; they stay in the score as
survivors, with the reason beside them in the report). All is written to ``reports/mutation/report.md`` with their diffs,
with ``summary.json`` beside it. The score is killed / (all mutants - equivalent ones); a
mutant that no test reaches counts as a survivor. Exit status 1 when the score is under
``--min-score``.

A module's work folder is kept between runs, and mutmut's own cache of results is used: the
copy of ``src`` and ``tests`` is brought up to date (file times kept, so mutmut regenerates
only the mutants of a source file that changed, and resets only those of its changed
functions), and the verdicts that new or changed tests could turn (survivors, mutants no
test reached, timeouts) are run again when the module's tests changed. ``--fresh`` starts
from nothing. ``--shard i/n`` runs the i-th of n shares of the modules (balanced by their
time limits), so a whole run can be split over budgets or machines; ``--changed-since REF``
runs only the modules whose source or tests differ from git ref ``REF`` (``make
mutation-changed``).

``--only NAME --functions F ...`` mutates only the functions ``F`` of that module (mutmut's
name patterns; each run re-runs them even when their verdicts are cached): a module too big for
one sitting is done a share at a time, and ``--report-only`` then reports it whole.

Usage: ``python tests/mutation/run_mutation.py [--only NAME ...] [--shard 1/4]
[--changed-since origin/main] [--fresh] [--min-score 90] [--functions F ...]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
MODULES_FILE = HERE / "modules.toml"
EQUIVALENT_FILE = HERE / "equivalent.toml"
REPORTS = ROOT / "reports" / "mutation"
TIMEOUT_MULTIPLIER = 4.0

# mutmut's exit codes (mutmut.stats.status_by_exit_code), folded into what the score needs
KILLED = {1: "killed", 3: "killed", 36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout"}
KILLED |= {255: "timeout", 37: "killed by type check", -11: "crashed", -9: "crashed"}
# a native library's failed assertion aborts the test process (faiss given a bad HNSW width)
KILLED |= {-6: "crashed"}
NOT_KILLED = {0: "survived", 5: "no tests", 33: "no tests", 34: "skipped", 35: "suspicious"}


@dataclass(frozen=True)
class Module:
    name: str
    path: str
    tests: list[str]
    timeout: int
    #: mutmut's timeout_multiplier for this module (see _pyproject_for)
    timeout_multiplier: float = 4.0


@dataclass(frozen=True)
class Equivalent:
    module: str
    function: str
    before: str
    after: str
    reason: str


@dataclass
class Mutant:
    name: str
    status: str
    diff: str = ""
    equivalent: Equivalent | None = None
    accepted: Equivalent | None = None
    #: mutmut timed it out; ``status`` is then its verdict from a run alone
    rechecked: bool = False


@dataclass
class ModuleResult:
    module: Module
    seconds: float = 0.0
    error: str = ""
    mutants: list[Mutant] = field(default_factory=list)

    def count(self, *statuses: str) -> int:
        return sum(m.status in statuses for m in self.mutants if m.equivalent is None)

    @property
    def equivalent(self) -> int:
        return sum(m.equivalent is not None for m in self.mutants)

    def rechecked(self, status: str) -> int:
        return sum(m.rechecked and m.status == status for m in self.mutants)

    @property
    def killed(self) -> int:
        return self.count(*KILLED.values())

    @property
    def scored(self) -> int:
        return sum(m.equivalent is None and m.status != "not checked" for m in self.mutants)

    @property
    def survivors(self) -> list[Mutant]:
        return [
            m
            for m in self.mutants
            if m.equivalent is None
            and m.status not in KILLED.values()
            and m.status != "not checked"
        ]


def load_modules(path: Path = MODULES_FILE) -> list[Module]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    default_timeout = int(data.get("timeout", 900))
    modules = [
        Module(
            m["name"],
            m["path"],
            list(m["tests"]),
            int(m.get("timeout", default_timeout)),
            float(m.get("timeout_multiplier", TIMEOUT_MULTIPLIER)),
        )
        for m in data["module"]
    ]
    for m in modules:
        missing = [p for p in [m.path, *m.tests] if not (ROOT / p).is_file()]
        if missing:
            raise SystemExit(f"{path.name}: module {m.name!r} names missing files: {missing}")
    return modules


def load_equivalents(path: Path = EQUIVALENT_FILE, table: str = "mutant") -> list[Equivalent]:
    """The ``[[mutant]]`` entries of ``path`` (equivalent mutants), or those of ``table``
    (``"accepted"``: survivors that can change behaviour, accepted for a reason)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = []
    for i, e in enumerate(data.get(table, []), 1):
        # ``after = ""``: the mutant deletes the line (an argument left out, say)
        missing = [k for k in ("module", "function", "before", "reason") if not e.get(k)]
        missing += [] if isinstance(e.get("after"), str) else ["after"]
        if missing:
            raise SystemExit(f"{path.name}: {table} #{i} lacks {', '.join(missing)}")
        out.append(Equivalent(e["module"], e["function"], e["before"], e["after"], e["reason"]))
    return out


def changed_lines(diff: str) -> tuple[str, str]:
    """The removed and the added lines of a mutant's diff, whitespace-normalised (the key an
    equivalent mutant is recorded by: stable when mutmut renumbers mutants)."""
    body = [ln for ln in diff.splitlines() if not ln.startswith(("---", "+++", "@@"))]
    before = " / ".join(" ".join(ln[1:].split()) for ln in body if ln.startswith("-"))
    after = " / ".join(" ".join(ln[1:].split()) for ln in body if ln.startswith("+"))
    return before, after


def function_of(mutant_name: str) -> str:
    """``colmeia.x.y.x_func__mutmut_3`` -> ``func``; methods ``xǁClassǁmethod__mutmut_1`` -> ``Class.method``."""
    last = mutant_name.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]
    if last.startswith("xǁ"):
        return ".".join(p for p in last[2:].split("ǁ") if p)
    return last[2:] if last.startswith("x_") else last


def match_equivalent(
    module: str, mutant_name: str, diff: str, known: list[Equivalent]
) -> Equivalent | None:
    before, after = changed_lines(diff)
    func = function_of(mutant_name)
    for e in known:
        if (e.module, e.function) == (module, func) and (
            " ".join(e.before.split()),
            " ".join(e.after.split()),
        ) == (before, after):
            return e
    return None


def _pyproject_for(module: Module) -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    lines = [
        "",
        "[tool.mutmut]",
        'source_paths = ["src"]',
        f"only_mutate = [{json.dumps(module.path)}]",
        f"pytest_add_cli_args_test_selection = {json.dumps(module.tests)}",
        # xdist stays loaded (the suite's conftest implements one of its hooks) but unused
        'pytest_add_cli_args = ["-n0", "-p", "no:cacheprovider", "-q", "-x"]',
        # bench: some tests score the module with a bench script (test_clean_gold.py)
        'also_copy = ["data", "examples", "bench"]',
        "use_git_change_detection = false",
        # by default a hang is caught after 4 (not 15) times the tests' usual time: every
        # timeout is run again alone (recheck_timeouts), so a slow run under load is not
        # scored as a kill, and a module with many hanging mutants does not wait minutes on
        # each; a module whose tests wait on deadlines of their own sets more in modules.toml
        f"timeout_multiplier = {module.timeout_multiplier}",
        "",
    ]
    return text + "\n".join(lines)


def _fingerprint(paths: list[str]) -> str:
    digest = hashlib.sha256()
    for p in sorted(paths):
        digest.update(p.encode() + b"\0" + (ROOT / p).read_bytes())
    return digest.hexdigest()


def prepare(module: Module, work: Path, *, fresh: bool = False) -> None:
    """The module's work folder, brought up to date (see the module docstring for the cache).

    ``fresh`` (or a work folder mutmut never finished) starts from nothing."""
    meta = work / "mutants" / (module.path + ".meta")
    if fresh or not meta.exists():
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("src", "tests", "data", "examples", "bench"):
        if folder == "tests" and (work / folder).exists():
            shutil.rmtree(work / folder)  # a removed test file must not linger
        # copy2 keeps each file's time: mutmut regenerates a mutated file only when its
        # source is newer than its mutants
        shutil.copytree(ROOT / folder, work / folder, ignore=ignore, dirs_exist_ok=True)
    pyproject = _pyproject_for(module)
    if (
        not (work / "pyproject.toml").exists()
        or (work / "pyproject.toml").read_text(encoding="utf-8") != pyproject
    ):
        (work / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    stamp = work / "tests.sha256"
    tests_now = _fingerprint([*module.tests, "tests/conftest.py"])
    if meta.exists() and (not stamp.exists() or stamp.read_text() != tests_now):
        reopen_verdicts(meta)
        # which tests reach which function, and the timeouts' verdicts, may have changed
        (work / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
        (work / "recheck.json").unlink(missing_ok=True)
    stamp.write_text(tests_now)


def reopen_verdicts(meta: Path) -> int:
    """Forget the verdicts new tests could change (survived, no tests, timeouts, suspicious),
    keep the kills; returns how many were reopened."""
    data = json.loads(meta.read_text(encoding="utf-8"))
    codes: dict[str, int | None] = data["exit_code_by_key"]
    reopen = {c for c, s in (KILLED | NOT_KILLED).items() if s not in ("killed", "crashed")}
    reopen.discard(37)  # killed by the type checker: no test can change that
    n = 0
    for key, code in codes.items():
        if code is not None and code in reopen:
            codes[key] = None
            n += 1
    meta.write_text(json.dumps(data), encoding="utf-8")
    return n


def shard(modules: list[Module], index: int, count: int) -> list[Module]:
    """The ``index``-th (1-based) of ``count`` shares of ``modules``: longest time limit first,
    each to the share with the least so far, so shares take about as long."""
    loads = [0] * count
    owner: dict[str, int] = {}
    for m in sorted(modules, key=lambda m: (-m.timeout, m.name)):
        k = loads.index(min(loads))
        loads[k] += m.timeout
        owner[m.name] = k
    return [m for m in modules if owner[m.name] == index - 1]


def changed_modules(modules: list[Module], base: str) -> list[Module]:
    """The modules whose source or one of whose tests differs from git ref ``base`` (committed
    or not)."""
    names = subprocess.run(
        ["git", "diff", "--name-only", base, "--"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    untracked = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    changed = set(names) | set(untracked)
    return [m for m in modules if m.path in changed or changed & set(m.tests)]


def _mutmut() -> list[str]:
    return [sys.executable, "-m", "mutmut"]


def mutant_globs(module: Module, functions: list[str]) -> list[str]:
    """mutmut's name patterns for the mutants of ``functions`` (``name`` or ``Class.method``)
    of ``module``: ``--functions`` runs (and re-runs) only those, a share of a module too big
    for one sitting."""
    dotted = module.path.removeprefix("src/").removesuffix(".py").replace("/", ".")
    out = []
    for f in functions:
        mangled = "xǁ" + "ǁ".join(f.split(".")) if "." in f else "x_" + f
        out.append(f"{dotted}.{mangled}__mutmut_*")
    return out


def run_module(
    module: Module,
    known: list[Equivalent],
    jobs: int,
    *,
    report_only: bool = False,
    accepted: list[Equivalent] | None = None,
    fresh: bool = False,
    functions: list[str] | None = None,
) -> ModuleResult:
    result = ModuleResult(module)
    work = REPORTS / "work" / module.name
    if not report_only:
        _mutate(module, work, jobs, result, fresh=fresh, functions=functions or [])
    return _collect(module, work, known, result, accepted or [])


def _mutate(
    module: Module,
    work: Path,
    jobs: int,
    result: ModuleResult,
    *,
    fresh: bool = False,
    functions: list[str],
) -> None:
    prepare(module, work, fresh=fresh)
    log = (REPORTS / f"{module.name}.log").open("w", encoding="utf-8")
    env = os.environ | {"PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"} | _ONE_MATH_THREAD
    start = time.monotonic()
    proc = subprocess.Popen(
        [*_mutmut(), "run", "--max-children", str(jobs), *mutant_globs(module, functions)],
        cwd=work,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    try:
        code = proc.wait(timeout=module.timeout)
        if code != 0:
            result.error = f"mutmut exited with {code} (see reports/mutation/{module.name}.log)"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        result.error = f"stopped after its time limit of {module.timeout} s"
    finally:
        log.close()
    result.seconds = time.monotonic() - start


# mutmut runs each mutant's tests in a worker forked from one parent: a maths library's
# thread pool started in the parent is missing in the child, and numpy's matrix products there
# hang until the time limit (every such mutant of assistant/hubness became a timeout, then a
# slow recheck). One thread per process, unless the caller chose otherwise.
_ONE_MATH_THREAD = {
    name: os.environ.get(name, "1")
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
}


def _clean_run_seconds(module: Module, work: Path) -> float:
    """How long the module's tests take with no mutant on (the yardstick of a recheck)."""
    start = time.monotonic()
    code = _run_tests(module, work, "", timeout=900)
    if code != 0:
        raise SystemExit(f"{module.name}: its tests fail with no mutant on (exit {code})")
    return time.monotonic() - start


def _run_tests(module: Module, work: Path, mutant: str, timeout: float) -> int | None:
    """Exit code of the module's tests run alone with ``mutant`` on, or None on a timeout."""
    env = os.environ | {
        "MUTANT_UNDER_TEST": mutant,
        "PYTHONPATH": "src",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if not mutant:
        env.pop("MUTANT_UNDER_TEST")
    args = [sys.executable, "-m", "pytest", "-n0", "-p", "no:cacheprovider", "-q", "-x"]
    proc = subprocess.Popen(
        [*args, *module.tests],
        cwd=work / "mutants",
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None


def recheck_timeouts(
    module: Module, work: Path, mutants: list[Mutant], limit: float | None = None
) -> None:
    """Give each timeout its verdict from a run alone (see the module docstring), each run
    stopped after ``limit`` seconds (default: three clean runs, at least 45 s)."""
    timeouts = [m for m in mutants if m.status == "timeout"]
    if not timeouts:
        return
    cache = work / "recheck.json"
    verdicts: dict[str, str] = (
        json.loads(cache.read_text(encoding="utf-8")) if cache.exists() else {}
    )
    todo = [m for m in timeouts if m.name not in verdicts]
    if todo:
        if limit is None:
            limit = max(45.0, 3 * _clean_run_seconds(module, work))
        print(f"{module.name}: rechecking {len(todo)} timeouts alone ...", flush=True)

        def verdict(m: Mutant) -> tuple[str, str]:
            code = _run_tests(module, work, m.name, timeout=limit)
            return m.name, "timeout" if code is None else "survived" if code == 0 else "killed"

        # two at a time: a genuine hang costs the whole limit, and most timeouts are hangs
        with ThreadPoolExecutor(max_workers=2) as pool:
            for name, status in pool.map(verdict, todo):
                verdicts[name] = status
                cache.write_text(json.dumps(verdicts, indent=1), encoding="utf-8")
    for m in timeouts:
        m.status = verdicts[m.name]
        m.rechecked = True


def _collect(
    module: Module,
    work: Path,
    known: list[Equivalent],
    result: ModuleResult,
    accepted: list[Equivalent],
) -> ModuleResult:
    meta = work / "mutants" / (module.path + ".meta")
    if not meta.exists():
        result.error = result.error or "mutmut wrote no results"
        return result
    codes: dict[str, int | None] = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    for name, code in sorted(codes.items(), key=lambda kv: _natural(kv[0])):
        status = "not checked" if code is None else KILLED.get(code) or NOT_KILLED.get(code, "odd")
        result.mutants.append(Mutant(name, status))
    recheck_timeouts(module, work, result.mutants)
    unkilled = [m for m in result.mutants if m.status in NOT_KILLED.values() or m.status == "odd"]
    diffs = _diffs(work, module.path, [m.name for m in unkilled])
    for m in unkilled:
        m.diff = diffs.get(m.name, "")
        m.equivalent = match_equivalent(module.name, m.name, m.diff, known)
        if m.equivalent is None:
            m.accepted = match_equivalent(module.name, m.name, m.diff, accepted)
    return result


def _natural(name: str) -> tuple[str, int]:
    head, _, num = name.rpartition("__mutmut_")
    return head, int(num) if num.isdigit() else 0


_DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
path, names = sys.argv[1], json.loads(sys.stdin.read())
print(json.dumps({n: get_diff_for_mutant(n, path=path) for n in names}))
"""


def _diffs(work: Path, path: str, names: list[str]) -> dict[str, str]:
    """Each mutant's diff, from mutmut's own differ (one process for all of them)."""
    if not names:
        return {}
    out = subprocess.run(
        [sys.executable, "-c", _DIFFS, path],
        cwd=work,
        input=json.dumps(names),
        capture_output=True,
        text=True,
        check=True,
    )
    diffs: dict[str, str] = json.loads(out.stdout)
    return diffs


def _pct(killed: int, scored: int) -> str:
    return f"{100 * killed / scored:.1f} %" if scored else "n/a"


def write_report(
    results: list[ModuleResult], seconds: float, load: tuple[float, ...]
) -> dict[str, Any]:
    killed = sum(r.killed for r in results)
    scored = sum(r.scored for r in results)
    summary: dict[str, Any] = {
        "score_percent": round(100 * killed / scored, 1) if scored else None,
        "killed": killed,
        "non_equivalent": scored,
        "equivalent": sum(r.equivalent for r in results),
        "survivors": sum(len(r.survivors) for r in results),
        "survivors_without_reason": sum(m.accepted is None for r in results for m in r.survivors),
        "seconds": round(seconds, 1),
        "load_average_before": list(load),
        "modules": {
            r.module.name: {
                "path": r.module.path,
                "mutants": len(r.mutants),
                "not_checked": r.count("not checked"),
                "killed": r.killed,
                "of_which_timeouts": r.count("timeout"),
                "fork_timeouts_rechecked": {
                    s: r.rechecked(s) for s in ("timeout", "killed", "survived")
                },
                "equivalent": r.equivalent,
                "survivors": len(r.survivors),
                "score_percent": round(100 * r.killed / r.scored, 1) if r.scored else None,
                "seconds": round(r.seconds, 1),
                "error": r.error or None,
            }
            for r in results
        },
    }
    md = [
        "# Mutation report",
        "",
        f"Score: **{_pct(killed, scored)}** of non-equivalent mutants killed "
        f"({killed}/{scored}; {summary['equivalent']} equivalent, listed in "
        f"tests/mutation/equivalent.toml). Run time {seconds:.0f} s, load average before "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}.",
        "",
        "| module | mutants | not checked | killed (timeouts) | equivalent | survivors | score | time "
        "| note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        md.append(
            f"| {r.module.name} (`{r.module.path}`) | {len(r.mutants)} | "
            f"{r.count('not checked')} | {r.killed} ({r.count('timeout')}) | "
            f"{r.equivalent} | {len(r.survivors)} | {_pct(r.killed, r.scored)} | "
            f"{r.seconds:.0f} s | {r.error} |"
        )
    rechecks = [r for r in results if any(m.rechecked for m in r.mutants)]
    if rechecks:
        md += ["", "Timeouts in mutmut's forked workers, each run again alone:", ""]
        for r in rechecks:
            md.append(
                f"- {r.module.name}: {r.rechecked('timeout')} hung again (killed: a hang), "
                f"{r.rechecked('killed')} failed (killed), {r.rechecked('survived')} passed "
                "(survivors)"
            )
    for r in results:
        if not r.survivors:
            continue
        md += ["", f"## Survivors in {r.module.name}", ""]
        for m in r.survivors:
            why = f"accepted: {m.accepted.reason}" if m.accepted else "no reason given yet"
            md += [f"### `{m.name}` ({m.status})", "", why, "", "```diff", m.diff, "```", ""]
    equivalents = [(r, m) for r in results for m in r.mutants if m.equivalent]
    if equivalents:
        md += ["", "## Equivalent mutants (not scored)", ""]
        for r, m in equivalents:
            assert m.equivalent is not None
            md.append(f"- {r.module.name} `{m.name}`: {m.equivalent.reason}")
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / "report.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (REPORTS / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", nargs="*", default=[], help="module names from modules.toml")
    parser.add_argument("--min-score", type=float, default=90.0)
    parser.add_argument("--modules", type=Path, default=MODULES_FILE, help="the module list")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument(
        "--time-factor",
        type=float,
        default=1.0,
        help="multiply every module's time limit (a slower or busier machine)",
    )
    parser.add_argument("--shard", default="", help="i/n: the i-th of n shares of the modules")
    parser.add_argument(
        "--changed-since",
        default="",
        metavar="REF",
        help="only the modules whose source or tests differ from git ref REF",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="ignore mutmut's cached results: mutate anew"
    )
    parser.add_argument(
        "--functions",
        nargs="*",
        default=[],
        metavar="NAME",
        help="only the mutants of these functions (name or Class.method) of the one module "
        "given with --only; they are run again even when mutmut has their verdicts",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="re-read the last run's results (after editing equivalent.toml), mutate nothing",
    )
    args = parser.parse_args(argv)
    modules = load_modules(args.modules)
    unknown = set(args.only) - {m.name for m in modules}
    if unknown:
        print(f"unknown module(s) {sorted(unknown)}; known: {[m.name for m in modules]}")
        return 2
    chosen = [
        dataclasses.replace(m, timeout=round(m.timeout * args.time_factor))
        for m in modules
        if not args.only or m.name in args.only
    ]
    if args.changed_since:
        chosen = changed_modules(chosen, args.changed_since)
        print(f"changed since {args.changed_since}: {[m.name for m in chosen] or 'no module'}")
        if not chosen:
            return 0
    if args.shard:
        try:
            index, count = (int(x) for x in args.shard.split("/"))
            if not 1 <= index <= count:
                raise ValueError
        except ValueError:
            print(f"--shard {args.shard!r}: write i/n with 1 <= i <= n, e.g. --shard 2/4")
            return 2
        chosen = shard(chosen, index, count)
    if args.functions and len(chosen) != 1:
        print("--functions needs exactly one module: name it with --only")
        return 2
    known = load_equivalents()
    accepted = load_equivalents(table="accepted")
    REPORTS.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()
    start = time.monotonic()
    results = []
    for module in chosen:
        print(f"{module.name}: mutating {module.path} ...", flush=True)
        r = run_module(
            module,
            known,
            args.jobs,
            report_only=args.report_only,
            accepted=accepted,
            fresh=args.fresh,
            functions=args.functions,
        )
        results.append(r)
        print(
            f"{module.name}: {r.killed}/{r.scored} killed ({_pct(r.killed, r.scored)}), "
            f"{r.equivalent} equivalent, {len(r.survivors)} survivors, {r.seconds:.0f} s"
            + (f" — {r.error}" if r.error else ""),
            flush=True,
        )
    summary = write_report(results, time.monotonic() - start, load)
    print(json.dumps({k: v for k, v in summary.items() if k != "modules"}))
    print(f"report: {(REPORTS / 'report.md').relative_to(ROOT)}")
    score = summary["score_percent"]
    failed = any(r.error for r in results)
    return 0 if score is not None and score >= args.min_score and not failed else 1


if __name__ == "__main__":
    raise SystemExit(main())
