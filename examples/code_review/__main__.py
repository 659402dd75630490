"""``python -m examples.code_review``."""

from __future__ import annotations

from examples.code_review.run import main

raise SystemExit(main())
