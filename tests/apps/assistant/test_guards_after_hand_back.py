"""After the search agent has looked the case up and handed the thread back, the coordinator's
next decision stands: the registry has answered, and a law the question names goes on to the
documents instead of back to the registry.

Scripted decisions over real HTTP to the simulated model, with the synthetic registry and the
shipped laws, as in test_assistant_model_guards.py."""

from __future__ import annotations

from typing import Any

import pytest
from assistant_helpers import Roles, call, cited_answer

from colmeia.sim.engine import Reply

pytestmark = pytest.mark.agents_route

CASE = "TC/000032/2023"


def _moves(result: Any) -> list[tuple[str, str]]:
    return [(h["from"], h["to"]) for h in result.handoffs]


async def test_the_law_a_looked_up_case_names_is_answered_from_the_law_after_the_hand_back(
    scripted: Any, assistant: Any
) -> None:
    roles = Roles(
        main=[
            call("transfer_to_search", reason="processo"),
            call("transfer_to_rag", task="o que diz a Lei 9.784"),
            Reply(content="Pronto."),
        ],
        search=[
            call("lookup_case", number=CASE),
            call("transfer_to_main", reason="e a lei?"),
            Reply(content=""),
        ],
        answer=[cited_answer],
    )
    bot = await assistant(scripted(roles))
    result = await bot.ask("t1", f"O processo {CASE} segue a Lei 9.784?")
    # the case was read, and the law part reaches the documents (red when the hand-back is
    # not seen: the coordinator's transfer is rewritten into the registry again)
    assert [t["tool"] for t in result.tools] == ["lookup_case"], result.as_dict()
    assert _moves(result) == [
        ("main", "search"),
        ("search", "main"),
        ("main", "rag"),
        ("rag", "main"),
    ]
    assert result.citations and all(c["law"] == "Lei 9.784/1999" for c in result.citations)
