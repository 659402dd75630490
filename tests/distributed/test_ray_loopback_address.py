"""Joining a Ray cluster on 127.0.0.1 (several nodes on one machine, all on loopback): the
driver must join as a loopback node, or Ray swaps 127.0.0.1 for the machine's network address
and finds no node there ("Failed to connect to Ray cluster at <machine address>")."""

from __future__ import annotations

import pytest

from colmeia.executors.ray_pool import on_loopback


@pytest.mark.parametrize(
    "address", ["127.0.0.1:26380", "localhost:6379", "[::1]:6379", "127.0.0.2:6379"]
)
def test_a_cluster_address_on_loopback_is_joined_on_loopback(address: str) -> None:
    assert on_loopback(address)


@pytest.mark.parametrize(
    "address", [None, "local", "auto", "ray-head:6379", "10.0.0.5:6379", "ray://127.0.0.1:10001"]
)
def test_other_addresses_are_joined_as_ray_decides(address: str | None) -> None:
    assert not on_loopback(address)
