"""``python -m examples.trip_plan``."""

from __future__ import annotations

from examples.trip_plan.run import main

raise SystemExit(main())
