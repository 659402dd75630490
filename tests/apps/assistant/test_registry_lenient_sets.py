"""Figures on the lenient-reference, registry-search and institutional sets: the development
set looked at while building, and the frozen test set written before the code and never tuned
on (``data/registry_lenient_test.json``). Both pass whole; a regression names its items."""

from __future__ import annotations

from pathlib import Path

import pytest
from registry_sets_helpers import para_registry, score_set


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("dev", {"refs": 18, "searches": 10, "institutional": 11}),
        ("test", {"refs": 17, "searches": 10, "institutional": 9}),
    ],
)
async def test_every_item_of_the_set_passes(
    name: str, expected: dict[str, int], tmp_path: Path
) -> None:
    reg = para_registry(tmp_path)
    try:
        score = await score_set(name, reg)
    finally:
        reg.close_sync()
    assert score.total == expected
    assert score.failures == []
    assert score.passed == expected
