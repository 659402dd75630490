"""colmeia: LLM agent systems for Portuguese and Spanish content."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
