"""An unasked subscription made in the same step as a lookup becomes the lookup of its own case,
and the other calls of the step go ahead: asked about two cases, the person gets both records
(neither dropped with the subscription), each read by its own number.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, calls

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

FIRST = "TC/000032/2023"
SECOND = "TC/000068/2023"


async def test_a_subscription_beside_a_lookup_reads_both_cases(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[call("transfer_to_search", reason="processos")],
        search=[
            calls(
                ("lookup_case", {"number": FIRST}),
                ("subscribe_updates", {"number": SECOND, "contact": "example@example.com"}),
                ("subscribe_updates", {"number": SECOND, "contact": "example@example.com"}),
            ),
            Reply(content=""),
        ],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"Qual a situação dos processos {FIRST} e {SECOND}?")
    assert result.status == "answered", result.as_dict()
    found = [f["number"] for f in result.facts if f.get("status") == "found"]
    assert sorted(found) == [FIRST, SECOND], result.as_dict()
    assert [t["arguments"].get("number") for t in result.tools] == [FIRST, SECOND]
