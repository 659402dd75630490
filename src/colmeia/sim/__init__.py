"""The simulated OpenAI-compatible model: scripted, schema-driven and faulty answers over real HTTP.

For tests, demos and load measurements. It speaks the same wire format as a real server, so code
under test crosses the real client. Nothing here is imported by the model layer (``colmeia.llm``).
"""

from __future__ import annotations

from colmeia.sim.engine import Faults, Latency, Reply, SimRequest, SimulatedModel
from colmeia.sim.quirks import Quirks
from colmeia.sim.server import SimServer, serve_forever

__all__ = [
    "Faults",
    "Latency",
    "Quirks",
    "Reply",
    "SimRequest",
    "SimServer",
    "SimulatedModel",
    "serve_forever",
]
