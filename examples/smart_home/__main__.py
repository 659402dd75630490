"""``python -m examples.smart_home``."""

from __future__ import annotations

from examples.smart_home.run import main

raise SystemExit(main())
