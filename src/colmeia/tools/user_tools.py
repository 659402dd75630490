"""A student's own tools, named on the command line: ``mymodule:func`` or ``path/to/file.py:func``,
and tool catalogues (a Python file whose ``TOOLS`` lists many of them).

A typed function with a docstring becomes a tool exactly as :meth:`Tool.from_function` makes
one; a :class:`Tool` is used as it is. Whatever goes wrong — a module that does not import, a
name that is not there, a function without a docstring — is one
:class:`~colmeia.errors.ConfigurationError` naming the spec and what to fix.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from colmeia.errors import ColmeiaError, ConfigurationError
from colmeia.tools.registry import Tool

__all__ = ["is_user_tool_spec", "load_tool_catalog", "load_user_tool"]


def is_user_tool_spec(spec: str) -> bool:
    """``module:func`` or ``file.py:func`` (a built-in tool's name has no colon)."""
    return ":" in spec


def _module(source: str, spec: str) -> ModuleType:
    path = Path(source)
    if source.endswith(".py"):
        if not path.is_file():
            raise ConfigurationError(f"tool {spec!r}: no file {path}")
        name = f"colmeia_user_tools_{path.stem}_{abs(hash(str(path.resolve())))}"
        loader_spec = importlib.util.spec_from_file_location(name, path)
        if loader_spec is None or loader_spec.loader is None:
            raise ConfigurationError(f"tool {spec!r}: {path} cannot be loaded as Python")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        try:
            loader_spec.loader.exec_module(module)
        except Exception as exc:
            raise ConfigurationError(
                f"tool {spec!r}: {path} failed to load: {type(exc).__name__}: {exc}"
            ) from None
        return module
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # `mytools:func` means mytools.py right here
    try:
        return importlib.import_module(source)
    except ModuleNotFoundError as exc:
        raise ConfigurationError(
            f"tool {spec!r}: no module {exc.name!r} (run from the folder that has "
            f"{source.replace('.', '/')}.py, or give a path: path/to/file.py:function)"
        ) from None
    except Exception as exc:
        raise ConfigurationError(
            f"tool {spec!r}: importing {source} failed: {type(exc).__name__}: {exc}"
        ) from None


def _as_tool(obj: Any, spec: str) -> Tool:
    if isinstance(obj, Tool):
        return obj
    if not callable(obj):
        raise ConfigurationError(f"tool {spec!r}: {type(obj).__name__} is not a function")
    try:
        return Tool.from_function(obj)
    except ColmeiaError as exc:
        raise ConfigurationError(f"tool {spec!r}: {exc}") from None


def load_user_tool(spec: str) -> Tool:
    """The tool ``spec`` names: ``module:function`` or ``path/to/file.py:function``."""
    source, _, attr = spec.strip().rpartition(":")
    if not source or not attr:
        raise ConfigurationError(
            f"tool {spec!r}: write module:function or path/to/file.py:function"
        )
    module = _module(source, spec)
    if not hasattr(module, attr):
        public = sorted(n for n in vars(module) if not n.startswith("_"))
        raise ConfigurationError(
            f"tool {spec!r}: {source} has no {attr!r}"
            + (f"; it defines {', '.join(public[:12])}" if public else "")
        )
    return _as_tool(getattr(module, attr), spec)


def load_tool_catalog(path: Path) -> list[Tool]:
    """Every tool of a catalogue file: its ``TOOLS`` (functions or tools), in order."""
    spec = str(path)
    module = _module(spec if spec.endswith(".py") else f"{spec}.py", spec)
    listed = getattr(module, "TOOLS", None)
    if not isinstance(listed, Iterable) or isinstance(listed, str | bytes):
        raise ConfigurationError(
            f"tool catalogue {path}: define TOOLS = [...] listing its functions or tools"
        )
    tools = [_as_tool(obj, f"{path}:TOOLS[{i}]") for i, obj in enumerate(listed)]
    if not tools:
        raise ConfigurationError(f"tool catalogue {path}: TOOLS is empty")
    names = [t.name for t in tools]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ConfigurationError(f"tool catalogue {path}: repeated tool names {repeated}")
    return tools
