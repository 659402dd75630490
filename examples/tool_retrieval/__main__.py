"""``python -m examples.tool_retrieval``."""

from __future__ import annotations

from examples.tool_retrieval.run import main

raise SystemExit(main())
