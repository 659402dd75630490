"""An ordered map over Ray tasks (colmeia.executors.ray_map) gives every item's result once, in
the order of the items, whatever order the tasks finish in: ``ingest --engine ray`` stores what
a local run stores because of it. The map starts its own local Ray (127.0.0.1) for the call.

Its own file so that ``make mutation``'s ray_map module starts Ray only for the tests that reach
the map (test_ray.py's ingestion tests reach it too, beside moderation on Ray)."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install 'colmeia[ray]')")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]


def test_a_ray_map_gives_every_result_once_in_input_order_whatever_finishes_first() -> None:
    from colmeia.executors.ray_map import ray_map_ordered

    def slow_first(item: Any, scale: float) -> Any:
        # the first items take longest: a map that yields as tasks finish gets them last
        import time as _time

        if isinstance(item, int):
            _time.sleep(scale * (12 - item))
            if item == 7:
                raise ValueError("item 7 is bad")
        return ("done", item)

    # falsy items (0, None, "") are items like any other; 3 twice is two items
    items: list[Any] = [0, 1, 2, 3, 3, None, 5, "", 7, 8, 9, 10]
    got = list(ray_map_ordered(slow_first, items, 0.05, workers=2))
    assert [item for item, _ in got] == items
    assert [r for _, r in got if not isinstance(r, Exception)] == [
        ("done", i) for i in items if i != 7
    ]
    (bad,) = [r for _, r in got if isinstance(r, Exception)]
    assert "item 7 is bad" in str(bad)
