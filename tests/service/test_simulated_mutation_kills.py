"""The simulated model of ``colmeia serve --simulated`` playing the assistant's agents: the
coordinator hands internet requests to the search agent, the search agent asks for an approved
web search and then reports its result, and every other turn goes to the careful stand-in."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

from colmeia.service.simulated import demo_responder
from colmeia.sim import Reply, SimRequest

SEARCH_AGENT = ("lookup_case", "web_search", "transfer_to_main")
COORDINATOR = ("ask_user", "transfer_to_search")


def request(tools: tuple[str, ...], *messages: dict[str, Any]) -> SimRequest:
    """A chat request offering the named tools, with these messages."""
    return SimRequest(
        index=0,
        body={},
        messages=list(messages),
        tools=[{"type": "function", "function": {"name": n}} for n in tools],
        tool_choice=None,
        response_format=None,
        schema=None,
        model="demo",
        stream=False,
        prompt_tokens=0,
    )


def user(text: str) -> dict[str, Any]:
    """A user's message."""
    return {"role": "user", "content": text}


def tool_result(name: str, content: Any) -> dict[str, Any]:
    """The result of tool ``name``."""
    return {"role": "tool", "name": name, "content": content}


def handed_to_stand_in(result: Any) -> bool:
    """Whether the turn went to the careful stand-in (an answer still to be awaited)."""
    if inspect.iscoroutine(result):
        result.close()
        return True
    return False


def test_the_search_agent_asks_for_a_web_search_with_the_first_eight_words() -> None:
    """A request to search the internet becomes one ``web_search`` call whose query is the
    first eight words of the user's message."""
    text = "Pesquise na internet  as decisões   recentes sobre merenda escolar no Ceará"
    result = demo_responder(request(SEARCH_AGENT, user("olá"), user(text)))
    assert isinstance(result, Reply)
    assert result.tool_calls == [
        {
            "name": "web_search",
            "arguments": {"query": "Pesquise na internet as decisões recentes sobre merenda"},
        }
    ]


@pytest.mark.parametrize(
    "text",
    ["procure na WEB o acórdão", "faça uma pesquisa disso", "busque online a lei", "INTERNET?"],
)
def test_words_that_ask_for_the_internet(text: str) -> None:
    """'internet', 'web', any 'pesquis…' word and 'busque online', in any case, ask for it."""
    result = demo_responder(request(SEARCH_AGENT, user(text)))
    assert isinstance(result, Reply) and result.tool_calls
    assert result.tool_calls[0]["name"] == "web_search"


@pytest.mark.parametrize("text", ["qual o prazo do webinar?", "busque o processo 123/2023"])
def test_other_words_do_not_ask_for_the_internet(text: str) -> None:
    """'webinar' is not 'web' and 'busque' alone is not 'busque online': the stand-in answers."""
    assert handed_to_stand_in(demo_responder(request(SEARCH_AGENT, user(text))))


def test_the_search_agent_reports_what_the_search_found() -> None:
    """After the web search's result the agent reports it, cut to 300 characters."""
    found = "x" * 299 + "yz"
    result = demo_responder(
        request(SEARCH_AGENT, user("pesquise na internet"), tool_result("web_search", found))
    )
    assert result == "(resposta simulada) Resultado da pesquisa: " + "x" * 299 + "y"


def test_an_empty_search_result_is_reported_without_trailing_space() -> None:
    """A search that returned nothing is reported as just the heading, with no trailing space."""
    result = demo_responder(
        request(SEARCH_AGENT, user("pesquise na web"), tool_result("web_search", None))
    )
    assert result == "(resposta simulada) Resultado da pesquisa:"


def test_the_search_agent_reads_only_the_last_message() -> None:
    """Only the latest message decides: a web search's result earlier in the thread, with the
    user asking again since, brings a new web search."""
    result = demo_responder(
        request(
            SEARCH_AGENT,
            user("pesquise na internet A"),
            tool_result("web_search", "antigo"),
            user("agora pesquise na internet B"),
        )
    )
    assert isinstance(result, Reply) and result.tool_calls
    assert result.tool_calls[0]["arguments"] == {"query": "agora pesquise na internet B"}


def test_a_registry_result_goes_to_the_stand_in() -> None:
    """After a registry look-up (not a web search) the careful stand-in reads the result."""
    req = request(SEARCH_AGENT, user("pesquise na internet"), tool_result("lookup_case", "{}"))
    assert handed_to_stand_in(demo_responder(req))


def test_without_the_web_search_tool_the_stand_in_answers() -> None:
    """A search agent not offered ``web_search`` never asks for it."""
    req = request(("lookup_case", "transfer_to_main"), user("pesquise na internet"))
    assert handed_to_stand_in(demo_responder(req))


@pytest.mark.parametrize("tool", SEARCH_AGENT)
def test_any_search_agent_tool_marks_the_search_agent(tool: str) -> None:
    """Each of the search agent's tools alone marks it: a legal question goes to the stand-in."""
    assert handed_to_stand_in(demo_responder(request((tool,), user("qual o prazo?"))))


def test_a_request_with_no_messages_goes_to_the_stand_in() -> None:
    """An empty conversation is no web request and no tool result."""
    assert handed_to_stand_in(demo_responder(request(SEARCH_AGENT)))
    assert handed_to_stand_in(demo_responder(request(COORDINATOR)))


def test_the_coordinator_hands_internet_requests_to_the_search_agent() -> None:
    """The coordinator transfers a request to search the internet, giving 'web' as the reason."""
    result = demo_responder(request(COORDINATOR, user("pesquise na internet o caso")))
    assert isinstance(result, Reply)
    assert result.tool_calls == [{"name": "transfer_to_search", "arguments": {"reason": "web"}}]


def test_the_coordinator_keeps_legal_questions() -> None:
    """A legal question stays with the coordinator's stand-in."""
    assert handed_to_stand_in(demo_responder(request(COORDINATOR, user("qual o prazo?"))))


def test_the_coordinator_does_not_transfer_again_after_a_tool() -> None:
    """Once a tool answered, the coordinator's stand-in reads it instead of transferring again."""
    req = request(COORDINATOR, user("pesquise na internet"), tool_result("transfer", "ok"))
    assert handed_to_stand_in(demo_responder(req))


def test_the_coordinator_without_a_search_agent_answers_itself() -> None:
    """With no ``transfer_to_search`` offered, the coordinator's stand-in answers."""
    req = request(("ask_user",), user("pesquise na internet"))
    assert handed_to_stand_in(demo_responder(req))


def test_tools_of_no_known_agent_get_the_automatic_answer() -> None:
    """Tools belonging to neither agent leave the answer to the simulated model (``None``)."""
    assert demo_responder(request(("calculator",), user("pesquise na internet"))) is None


@pytest.mark.parametrize("tools", [SEARCH_AGENT, COORDINATOR])
def test_the_stand_in_answers_the_request_it_was_handed(tools: tuple[str, ...]) -> None:
    """The turn handed to the careful stand-in is this request, and it answers it."""
    result = demo_responder(request(tools, user("qual o prazo para recorrer?")))
    assert inspect.iscoroutine(result)
    answer = asyncio.run(result)
    assert isinstance(answer, Reply)
    assert answer.content or answer.tool_calls
