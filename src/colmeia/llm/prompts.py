"""Jinja2 prompt templates: packaged with the code, overridable from one folder for every app.

Each package that talks to a model keeps its templates in a ``prompts/`` folder beside its code
(``colmeia/apps/moderation/prompts/decider.j2``). Templates are rendered with
``StrictUndefined``: a missing variable is a bug, not an empty string.

A team changes what an agent is told without touching the installed package: a **prompts
folder** (``COLMEIA_PROMPTS_DIR``, :func:`use_prompts_dir`, or ``--prompts DIR`` on the commands
that take it) holds templates that replace the packaged ones by name. Its layout is one
subfolder per package, named by the package's short name, so two apps' ``system.j2`` can never
clash::

    my-prompts/
      moderation/decider.j2      replaces colmeia/apps/moderation/prompts/decider.j2
      agents/react_native.j2     replaces colmeia/agents/prompts/react_native.j2

``colmeia prompts export DIR`` writes every packaged template in that layout as a starting
point. A folder is validated as soon as it is chosen (:class:`PromptsDir`): a file that is not a
packaged template's name, a template that does not parse, or one that uses a variable the code
never passes is refused with one line naming the file. A template only uses a subset of the
variables; dropping one is allowed (a team may not want the category in a prompt). The folder's
SHA-256 (names and bytes of its templates) goes into run manifests, so a result says which
prompts wrote it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from colmeia.errors import ConfigurationError

if TYPE_CHECKING:
    import jinja2

__all__ = [
    "PROMPTS_ENV",
    "PromptsDir",
    "active_prompts",
    "export_prompts",
    "packaged_templates",
    "prompts_dir",
    "render_prompt",
    "reset_prompts_dir",
    "template_variables",
    "use_prompts_dir",
]

log = logging.getLogger(__name__)

PROMPTS_ENV = "COLMEIA_PROMPTS_DIR"
_ROOT = Path(__file__).resolve().parents[1]  # the colmeia package folder
_SUFFIX = ".j2"


@lru_cache(maxsize=1)
def packaged_templates() -> dict[str, tuple[str, Path]]:
    """Short name → (dotted package, its ``prompts/`` folder), for every package with templates.

    Found on disk rather than listed, so a package that adds templates is overridable at once.
    The short name is the package's last component (``moderation``, ``agents``, ``rag``…).
    """
    found: dict[str, tuple[str, Path]] = {}
    for folder in sorted(_ROOT.rglob("prompts")):
        if not folder.is_dir() or "__pycache__" in folder.parts:
            continue
        if not any(folder.glob(f"*{_SUFFIX}")):
            continue
        package = ".".join(("colmeia", *folder.parent.relative_to(_ROOT).parts))
        short = folder.parent.name
        if short in found:  # a programming error the tests catch: two packages, one name
            raise RuntimeError(f"two packages with prompts are both called {short!r}")
        found[short] = (package, folder)
    return found


def _short_name(package: str) -> str:
    for short, (dotted, _) in packaged_templates().items():
        if dotted == package:
            return short
    return package.rsplit(".", 1)[-1]


def _new_environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    import jinja2

    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # prompts are plain text for a model, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def template_variables(env: jinja2.Environment, name: str) -> set[str]:
    """Variables a template (and every template it imports or includes) reads from its caller."""
    import jinja2.meta

    seen: set[str] = set()
    out: set[str] = set()

    def walk(template: str) -> None:
        if template in seen:
            return
        seen.add(template)
        source = env.loader.get_source(env, template)[0] if env.loader else ""
        ast = env.parse(source)
        out.update(jinja2.meta.find_undeclared_variables(ast))
        for ref in jinja2.meta.find_referenced_templates(ast):
            if ref:
                walk(ref)

    walk(name)
    return out


def _same_text(mine: bytes, packaged: bytes) -> bool:
    """Whether a template is the packaged one: same bytes, line endings aside (an editor on
    Windows saving an untouched copy has not edited it)."""
    return mine.replace(b"\r\n", b"\n") == packaged.replace(b"\r\n", b"\n")


@dataclass(frozen=True, slots=True)
class PromptsDir:
    """A validated prompts folder: which packaged templates it replaces, and its hash."""

    path: Path
    sha256: str
    overrides: tuple[str, ...]  # "moderation/decider.j2", sorted
    dropped: dict[str, tuple[str, ...]] = field(default_factory=dict)  # variables not used
    # Copies of packaged templates left unedited (an export keeps them all): they change
    # nothing, so they are neither overrides nor part of the folder's hash.
    unchanged: tuple[str, ...] = ()

    @classmethod
    def load(cls, path: Path | str, *, setting: str = "prompts folder") -> PromptsDir:
        """Validate ``path``; a problem raises :class:`ConfigurationError` naming the file."""
        path = Path(path).expanduser()
        if not path.is_dir():
            raise ConfigurationError(f"{setting} {path}: not a folder")
        packages = packaged_templates()
        digest = hashlib.sha256()
        overrides: list[str] = []
        unchanged: list[str] = []
        dropped: dict[str, tuple[str, ...]] = {}
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            rel = file.relative_to(path)
            if any(part.startswith(".") for part in rel.parts):
                continue  # .git, editor swap files
            if file.suffix != _SUFFIX:
                if file.suffix in (".md", ".txt"):
                    continue  # notes beside the templates
                raise ConfigurationError(
                    f"{file}: not a template (prompts are <package>/<name>{_SUFFIX} files)"
                )
            if len(rel.parts) != 2:
                owners = [s for s, (_, f) in packages.items() if (f / file.name).is_file()]
                hint = f"; put it in {' or '.join(f'{o}/' for o in owners)}" if owners else ""
                raise ConfigurationError(
                    f"{file}: templates go in a subfolder named after their package "
                    f"({', '.join(sorted(packages))}){hint}"
                )
            short, name = rel.parts
            if short not in packages:
                raise ConfigurationError(
                    f"{file}: no package {short!r} has prompts; use one of "
                    f"{', '.join(sorted(packages))}"
                )
            folder = packages[short][1]
            if not (folder / name).is_file():
                known = sorted(p.name for p in folder.glob(f"*{_SUFFIX}"))
                raise ConfigurationError(
                    f"{file}: {short} has no template {name!r}; its templates: {', '.join(known)}"
                )
            try:
                data = file.read_bytes()
                text = data.decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ConfigurationError(f"{file}: cannot read the template ({exc})") from None
            if _same_text(data, (folder / name).read_bytes()):
                unchanged.append(f"{short}/{name}")
                continue
            digest.update(f"{short}/{name}\0".encode())
            digest.update(data + b"\0")
            overrides.append(f"{short}/{name}")
            dropped_vars = cls._check(file, path / short, folder, name, text)
            if dropped_vars:
                dropped[f"{short}/{name}"] = dropped_vars
        return cls(path.resolve(), digest.hexdigest(), tuple(overrides), dropped, tuple(unchanged))

    @staticmethod
    def _check(file: Path, own: Path, packaged: Path, name: str, text: str) -> tuple[str, ...]:
        """Refuse a template that does not parse or reads a variable the code never passes."""
        import jinja2

        env = _new_environment(
            jinja2.ChoiceLoader(
                [jinja2.FileSystemLoader(str(own)), jinja2.FileSystemLoader(str(packaged))]
            )
        )
        original = _new_environment(jinja2.FileSystemLoader(str(packaged)))
        try:
            env.parse(text)
            used = template_variables(env, name)
        except jinja2.TemplateSyntaxError as exc:
            where = f"{exc.filename or file}:{exc.lineno}"
            raise ConfigurationError(f"{where}: template syntax error: {exc.message}") from None
        except jinja2.TemplateNotFound as exc:
            raise ConfigurationError(
                f"{file}: imports {exc.name!r}, which does not exist"
            ) from None
        given = template_variables(original, name)
        unknown = sorted(used - given)
        if unknown:
            raise ConfigurationError(
                f"{file}: uses variable(s) {', '.join(unknown)} unknown to this template; "
                f"the variables it is given: {', '.join(sorted(given))}"
            )
        return tuple(sorted(given - used))

    def describe(self) -> dict[str, Any]:
        """What a run manifest records about the prompts."""
        return {"dir": str(self.path), "sha256": self.sha256, "overrides": list(self.overrides)}


# The folder chosen in code (use_prompts_dir); when nothing was chosen, COLMEIA_PROMPTS_DIR is
# read at each use (a folder is validated once per path and process).
_lock = threading.Lock()
_UNSET: Any = object()
_chosen: Any = _UNSET


def use_prompts_dir(path: Path | str | None) -> PromptsDir | None:
    """Take templates from ``path`` from now on (validated first); ``None`` = packaged only,
    whatever ``COLMEIA_PROMPTS_DIR`` says. Returns the validated folder."""
    global _chosen
    chosen = PromptsDir.load(path) if path is not None else None
    with _lock:
        _chosen = chosen
    return chosen


def reset_prompts_dir() -> None:
    """Forget :func:`use_prompts_dir`: ``COLMEIA_PROMPTS_DIR`` decides again."""
    global _chosen
    with _lock:
        _chosen = _UNSET


@contextmanager
def prompts_dir(path: Path | str | None) -> Iterator[PromptsDir | None]:
    """``with prompts_dir(DIR):`` templates come from DIR inside the block, as before after."""
    global _chosen
    with _lock:
        before = _chosen
    try:
        yield use_prompts_dir(path)
    finally:
        with _lock:
            _chosen = before


@lru_cache(maxsize=8)
def _from_env(value: str) -> PromptsDir:
    found = PromptsDir.load(value, setting=PROMPTS_ENV)
    log.info("prompts from %s (%s)", found.path, ", ".join(found.overrides))
    return found


def active_prompts() -> PromptsDir | None:
    """The prompts folder in use (validated), or ``None`` when only packaged templates are."""
    chosen = _chosen
    if chosen is not _UNSET:
        return cast(PromptsDir | None, chosen)
    value = os.environ.get(PROMPTS_ENV, "").strip()
    return _from_env(value) if value else None


@lru_cache(maxsize=64)
def _environment(package: str, override: Path | None) -> jinja2.Environment:
    import jinja2

    loaders: list[jinja2.BaseLoader] = []
    if override is not None:
        loaders.append(jinja2.FileSystemLoader(str(override / _short_name(package))))
    loaders.append(jinja2.PackageLoader(package, "prompts"))
    return _new_environment(jinja2.ChoiceLoader(loaders) if len(loaders) > 1 else loaders[0])


def render_prompt(package: str, name: str, **variables: Any) -> str:
    """Render template ``name`` of ``package`` (e.g. ``("colmeia.apps.moderation",
    "decider.j2")``): the prompts folder's copy when it has one, else the packaged one."""
    chosen = active_prompts()
    env = _environment(package, chosen.path if chosen else None)
    return env.get_template(name).render(**variables).strip()


def export_prompts(target: Path | str, *, overwrite: bool = False) -> list[Path]:
    """Write every packaged template to ``target/<package>/<name>.j2``; returns the files.

    An existing file is refused (nothing is written) unless ``overwrite``: a team's edited
    prompts are never replaced by accident."""
    target = Path(target)
    plan = [
        (src, target / short / src.name)
        for short, (_, folder) in sorted(packaged_templates().items())
        for src in sorted(folder.glob(f"*{_SUFFIX}"))
    ]
    existing = [dst for _, dst in plan if dst.exists()]
    if existing and not overwrite:
        raise ConfigurationError(
            f"{existing[0]}: already exists ({len(existing)} of the {len(plan)} templates "
            "do); choose an empty folder or overwrite them explicitly"
        )
    for src, dst in plan:
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(src.read_bytes())
    return [dst for _, dst in plan]
