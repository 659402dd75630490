"""An ordered map over Ray tasks (colmeia.executors.ray_map) gives every item's result once, in
the order of the items, whatever order the tasks finish in: ``ingest --engine ray`` stores what
a local run stores because of it. The map starts its own local Ray (127.0.0.1) for the call.

Its own file so that ``make mutation``'s ray_map module starts Ray only for the tests that reach
the map (test_ray.py's ingestion tests reach it too, beside moderation on Ray)."""

from __future__ import annotations

import time
from pathlib import Path
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


def test_a_ray_map_keeps_two_tasks_per_worker_in_flight_and_stops_the_ray_it_started(
    tmp_path: Path,
) -> None:
    import ray

    from colmeia.executors.ray_map import ray_map_ordered

    def mark_and_return(item: int, folder: str) -> int:
        # (defined here: Ray sends a test's own functions by value, not by module name)
        from pathlib import Path as _Path

        (_Path(folder) / f"started-{item}").touch()
        return item

    # a caller that takes results slowly (a store writing each one) never has all its
    # items sent out at once: 2 × workers tasks, and one more each time it takes a result
    results = ray_map_ordered(mark_and_return, list(range(10)), str(tmp_path), workers=2)
    try:
        assert next(results) == (0, 0)
        deadline = time.monotonic() + 60
        while len(list(tmp_path.iterdir())) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # time enough for a sixth task to start, were one sent
        started = sorted(p.name for p in tmp_path.iterdir())
        assert started == [f"started-{i}" for i in range(5)]
    finally:
        results.close()
    assert not ray.is_initialized()  # the map started this Ray: it is gone with the map


def test_each_failed_item_has_its_own_error_and_the_others_their_results() -> None:
    import ray

    from colmeia.executors.ray_map import ray_map_ordered
    from colmeia.executors.ray_pool import init_local_ray

    def bad_when_odd(item: int) -> str:
        if item % 2:
            raise ValueError(f"item {item} is odd")
        return f"item {item} is fine"

    init_local_ray()
    try:
        got = list(ray_map_ordered(bad_when_odd, range(7), workers=2))
        assert [item for item, _ in got] == list(range(7))
        for item, result in got:
            if item % 2:
                assert isinstance(result, ValueError)
                assert f"item {item} is odd" in str(result)
                assert all(
                    f"item {other} " not in str(result) for other in range(7) if other != item
                )
            else:
                assert result == f"item {item} is fine"
        assert ray.is_initialized()  # a Ray the caller started is the caller's to stop
    finally:
        ray.shutdown()


def test_a_malformed_address_is_refused_before_any_ray_starts() -> None:
    import ray

    from colmeia.errors import ConfigurationError
    from colmeia.executors.ray_map import ray_map_ordered

    with pytest.raises(ConfigurationError, match="use auto, local, HOST:PORT"):
        next(ray_map_ordered(str, [1], workers=1, address="head-without-port"))
    assert not ray.is_initialized()


def test_tasks_claim_one_cpu_each_so_a_two_cpu_ray_runs_two_at_once(tmp_path: Path) -> None:
    import ray

    from colmeia.executors.ray_map import ray_map_ordered
    from colmeia.executors.ray_pool import init_local_ray

    def meet(item: int, folder: str) -> str:
        # each task waits for the other: only two running at once ever meet
        import time as _time
        from pathlib import Path as _Path

        (_Path(folder) / f"here-{item}").touch()
        other = _Path(folder) / f"here-{1 - item}"
        deadline = _time.monotonic() + 30
        while not other.exists() and _time.monotonic() < deadline:
            _time.sleep(0.05)
        return "met" if other.exists() else "alone"

    init_local_ray(num_cpus=2)
    try:
        got = list(ray_map_ordered(meet, [0, 1], str(tmp_path), workers=1))
        assert got == [(0, "met"), (1, "met")]
    finally:
        ray.shutdown()
