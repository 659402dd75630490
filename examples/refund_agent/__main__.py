"""``python -m examples.refund_agent``."""

from __future__ import annotations

from examples.refund_agent.run import main

raise SystemExit(main())
