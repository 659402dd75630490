"""Executors for batch work beyond one process: the same per-record function, run elsewhere.

The local runner (the default) needs nothing from here. :class:`RayPool` runs a worker object's
async method in Ray actors, :func:`ray_map_ordered` a function per item in Ray tasks
(``pip install 'colmeia[ray]'``).
"""

from colmeia.executors.ray_map import ray_map_ordered
from colmeia.executors.ray_pool import RayPool, RayPoolStats, init_local_ray, ray_available

__all__ = ["RayPool", "RayPoolStats", "init_local_ray", "ray_available", "ray_map_ordered"]
