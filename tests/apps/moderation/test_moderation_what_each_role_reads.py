"""What each of the five agents reads, round after round, when the product has documents and
the original answer breaks the store policy: the reviewers judge the answer under review (the
original, then each rewrite) with what their role needs; the suggester hears both reviews and
the policy violations; the first rewrite is told what to remove, the second hears why the
first was sent back (and not the original's violations again); the decider judges with the
product's documents too. The trail and the result say which passages were shown.

The product documents shipped in ``data/moderation/product_docs`` are ingested into a real
SQLite store; the agents are the simulated model over real HTTP, scripted per role.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from moderation_helpers import ROLE_OF

from colmeia.apps.moderation.documents import ProductDocuments
from colmeia.apps.moderation.graph import Moderator
from colmeia.apps.moderation.policy import PolicySet
from colmeia.apps.moderation.records import ModerationItem
from colmeia.llm.openai_compat import OpenAIChatModel
from colmeia.llm.prompts import reset_prompts_dir, use_prompts_dir
from colmeia.rag.pipeline import ingest
from colmeia.sim.engine import SimRequest, SimulatedModel
from colmeia.store import open_store
from shared_data import DATA_DIR

DOCS = DATA_DIR / "moderation" / "product_docs"
PHONE = " Dúvidas? Ligue (11) 98765-4321."
FIRST = "Olá! Sim, a torneira Docol está em estoque. Atenciosamente, equipe Docol."
SECOND = "Olá! Sim, em estoque, com envio em 24 horas e garantia de 5 anos. Atenciosamente, Docol."


class Agents:
    """Scripted agents that keep every prompt they are sent, by role."""

    def __init__(self) -> None:
        self.user: defaultdict[str, list[str]] = defaultdict(list)
        self.system: defaultdict[str, list[str]] = defaultdict(list)

    def __call__(self, req: SimRequest) -> dict[str, Any]:
        role = ROLE_OF[str((req.schema or {}).get("title"))]
        for m in req.messages:
            {"user": self.user, "system": self.system}[m["role"]][role].append(str(m["content"]))
        rnd = len(self.user[role])  # this role's call number, from 1
        if role == "semantic":
            return {"justification": f"Semântica {rnd}.", "score": 1}
        if role == "contextual":
            return {"justification": f"Contexto {rnd}.", "score": 2}
        if role == "suggester":
            return {"suggestions": ["Diga o prazo de envio.", "Tire o telefone."]}
        if role == "rewriter":
            return {"can_rewrite": True, "answer": FIRST if rnd == 1 else SECOND, "reason": ""}
        if rnd == 1:
            return {"reasoning": "Falta o prazo de envio.", "decision": "rewrite_again"}
        return {"reasoning": "Completa.", "decision": "answer"}


@pytest.fixture
def item() -> ModerationItem:
    raw = json.loads((DATA_DIR / "moderation" / "sample_items.json").read_text("utf-8"))
    docol = next(r for r in raw if str(r["id"]) == "13000100143")  # a tap with a manual
    docol["answer"] += PHONE
    return ModerationItem.model_validate(docol)


@pytest.fixture
def documents(tmp_path: Path) -> ProductDocuments:
    store = open_store(f"sqlite:///{tmp_path / 'docs.db'}", cache_dir=tmp_path / "cache")
    try:
        ingest(store, "produtos", [DOCS], relative_to=DOCS)
    finally:
        store.close()
    return ProductDocuments.open(str(tmp_path / "docs.db"), "produtos")


@pytest.fixture
async def moderated(
    sim_server: Any, item: ModerationItem, documents: ProductDocuments
) -> AsyncIterator[tuple[Agents, dict[str, Any]]]:
    agents = Agents()
    srv = sim_server(SimulatedModel(responder=agents))
    try:
        async with OpenAIChatModel(base_url=srv.base_url, model="sim") as model:
            result = await Moderator(model, documents=documents).moderate(item)
        yield agents, result
    finally:
        documents.close()


CONTEXT = "PRODUCT CONTEXT:\n- title: Torneira Gourmet Monocomando\n- BRAND: Docol"
RULES = "STORE METADATA / RULES:\n"
STORE_RULE = "rule: Não indicar produtos de outras lojas."
DOCUMENTS = "PRODUCT DOCUMENTS (the maker's manuals"
LABEL = "[D1] "
TOPIC = "CATEGORY: Construção   INTENT: Disponibilidade"
QUESTION = "Tem disponível para envio imediato?"


def test_the_loop_ran_two_rewrites_and_accepted_the_second(
    moderated: tuple[Agents, dict[str, Any]],
) -> None:
    agents, result = moderated
    assert (result["outcome"], result["reason_code"]) == ("ANSWER_REVISED", "accepted")
    assert result["final_answer"] == SECOND
    assert {role: len(sent) for role, sent in agents.user.items()} == {
        "semantic": 3,
        "contextual": 3,
        "suggester": 1,
        "rewriter": 2,
        "decider": 2,
    }


def test_the_reviewers_read_the_answer_under_review_with_what_their_role_needs(
    moderated: tuple[Agents, dict[str, Any]], item: ModerationItem
) -> None:
    agents, _ = moderated
    for role in ("semantic", "contextual"):
        under_review = [
            s.split("ANSWER UNDER REVIEW: ", 1)[1].split("\n")[0] for s in agents.user[role]
        ]
        assert under_review == [item.answer, FIRST, SECOND], role
        for sent in agents.user[role]:
            assert TOPIC in sent, role
    for sent in agents.user["semantic"]:
        assert f"QUESTION (pt): {QUESTION}" in sent
        assert "PRODUCT CONTEXT" not in sent  # style and clarity only: no facts to check
        assert DOCUMENTS not in sent
    for sent in agents.user["contextual"]:
        for part in (CONTEXT, RULES, STORE_RULE, DOCUMENTS, LABEL, f"QUESTION: {QUESTION}"):
            assert part in sent, part
        assert sent.rstrip().endswith(
            "compare each fact of the answer with the PRODUCT DOCUMENTS above."
        )


def test_the_suggester_hears_both_reviews_and_the_originals_policy_violations(
    moderated: tuple[Agents, dict[str, Any]], item: ModerationItem
) -> None:
    agents, _ = moderated
    [sent] = agents.user["suggester"]
    for part in (CONTEXT, RULES, STORE_RULE, DOCUMENTS, LABEL, f"QUESTION: {QUESTION}"):
        assert part in sent, part
    assert f"ANSWER: {item.answer}" in sent
    assert "STORE POLICY:\n- Write the answer in Portuguese only." in sent
    assert "POLICY VIOLATIONS TO FIX:\n- store policy: remove the phone number (11)" in sent
    assert "SEMANTIC REVIEW (1/5): Semântica 1." in sent
    assert "CONTEXTUAL REVIEW (2/5): Contexto 1." in sent


def test_the_first_rewrite_is_told_what_to_remove_the_second_why_the_first_was_sent_back(
    moderated: tuple[Agents, dict[str, Any]], item: ModerationItem
) -> None:
    agents, _ = moderated
    first, second = agents.user["rewriter"]
    for sent in (first, second):
        for part in (CONTEXT, RULES, STORE_RULE, DOCUMENTS, LABEL, TOPIC):
            assert part in sent, part
        assert f"QUESTION: {QUESTION}" in sent
        assert "STORE POLICY:\n- Write the answer in Portuguese only." in sent
        assert "WRITE THE ANSWER IN: Portuguese" in sent
        assert "SUGGESTIONS:\n- Diga o prazo de envio.\n- Tire o telefone." in sent
    assert f"CURRENT ANSWER: {item.answer}" in first
    assert (
        first.split("FEEDBACK ON THE PREVIOUS REWRITE (fix all of it):\n", 1)[1].split("\n")[0]
        == "- store policy: remove the phone number (11) 98765-4321"
    )
    assert f"CURRENT ANSWER: {FIRST}" in second
    feedback = second.split("FEEDBACK ON THE PREVIOUS REWRITE (fix all of it):\n", 1)[1]
    heard = [line[2:] for line in feedback.strip().splitlines()]
    # the decider's reason and the reviews of the first rewrite (round 1), not of the original
    assert heard == ["Falta o prazo de envio.", "Semântica 2.", "Contexto 2."]


def test_the_decider_judges_with_the_products_documents_and_each_rewrite_in_turn(
    moderated: tuple[Agents, dict[str, Any]],
) -> None:
    agents, _ = moderated
    for n, (sent, rewrite) in enumerate(
        zip(agents.user["decider"], (FIRST, SECOND), strict=True), 1
    ):
        for part in (CONTEXT, STORE_RULE, DOCUMENTS, LABEL, TOPIC, f"QUESTION: {QUESTION}"):
            assert part in sent, part
        assert f"REWRITE #{n} (" in sent and rewrite in sent


def test_every_role_is_told_how_to_weigh_the_documents_it_is_shown(
    moderated: tuple[Agents, dict[str, Any]],
) -> None:
    agents, _ = moderated
    rule = "PRODUCT DOCUMENTS (the maker's manual, specifications and FAQ of this product)"
    for role in ("contextual", "rewriter", "decider"):
        assert all(rule in " ".join(s.split()) for s in agents.system[role]), role


def test_the_trail_and_the_result_name_the_passages_shown_and_the_originals_violation(
    moderated: tuple[Agents, dict[str, Any]],
) -> None:
    _, result = moderated
    shown = result["trail"][0]
    assert (shown["role"], shown["round"], shown["model"]) == ("documents", 0, "")
    assert shown["output"]["collection"] == "produtos"
    # what the store was searched with: the question, the brand and the product title
    assert shown["output"]["query"] == f"{QUESTION} Docol Torneira Gourmet Monocomando"
    ids = [p["id"] for p in shown["output"]["passages"]]
    assert ids and all(i.startswith("docol-torneira-gourmet.md") for i in ids)
    assert result["documents"] == {"collection": "produtos", "passages": ids}
    assert result["trail"][1]["role"] == "policy" and result["trail"][1]["round"] == 0
    [violation] = result["policy"]["violations"]
    assert (violation["round"], violation["checked"], violation["rule"]) == (0, "original", "phone")
    # the documents step and the policy check are no model calls
    assert result["usage"]["calls"] == 11
    assert result["revisions"] == 2


async def test_without_a_locale_or_documents_the_rewriter_keeps_the_questions_language(
    sim_server: Any, item: ModerationItem
) -> None:
    """A record with no locale and a question too short to tell its language: no policy can
    name the answer's language, so the rewriter is told to keep the question's; with the
    pure-model policy nothing is to be removed from the first rewrite; and no role hears of
    documents it was not shown."""
    agents = Agents()
    srv = sim_server(SimulatedModel(responder=agents))
    no_locale = item.model_copy(update={"locale": None, "question": "Envio imediato?"})
    async with OpenAIChatModel(base_url=srv.base_url, model="sim") as model:
        result = await Moderator(model, policy=PolicySet.none()).moderate(no_locale)
    assert result["outcome"] == "ANSWER_REVISED" and result["documents"] is None
    assert result["policy"]["language"] is None
    first, second = agents.user["rewriter"]
    assert "WRITE THE ANSWER IN: the question's language" in first
    assert "FEEDBACK ON THE PREVIOUS REWRITE" not in first  # the phone is no violation here
    assert "FEEDBACK ON THE PREVIOUS REWRITE" in second
    for role, sent in [*agents.user.items(), *agents.system.items()]:
        assert not any("PRODUCT DOCUMENTS" in s for s in sent), role


def test_the_passages_the_trail_names_are_the_ones_shown_labelled_in_order(
    moderated: tuple[Agents, dict[str, Any]],
) -> None:
    """A justification citing [D2] can be traced to the trail's second passage."""
    agents, result = moderated
    passages = result["trail"][0]["output"]["passages"]
    assert passages
    sent = agents.user["contextual"][0]
    for n, p in enumerate(passages, 1):
        assert re.search(rf"^\[D{n}\] {re.escape(p['title'])}: \S", sent, re.MULTILINE), n
    assert f"[D{len(passages) + 1}]" not in sent


async def test_a_teams_template_that_names_both_parts_gets_each_rendered_once(
    sim_server: Any, item: ModerationItem, tmp_path: Path
) -> None:
    """A prompts folder may write its template as ``part == "system"`` / ``part == "user"``:
    the instructions go out as the system message, the record as the user message."""
    folder = tmp_path / "ours" / "moderation"
    folder.mkdir(parents=True)
    (folder / "semantic.j2").write_text(
        '{% if part == "system" %}REVISOR DA LOJA.{% elif part == "user" %}'
        "PERGUNTA: {{ question }} RESPOSTA: {{ answer }}{% endif %}\n",
        encoding="utf-8",
    )
    agents = Agents()
    srv = sim_server(SimulatedModel(responder=agents))
    use_prompts_dir(tmp_path / "ours")
    try:
        async with OpenAIChatModel(base_url=srv.base_url, model="sim") as model:
            await Moderator(model, policy=PolicySet.none()).moderate(item)
    finally:
        reset_prompts_dir()
    assert agents.system["semantic"][0] == "REVISOR DA LOJA."
    assert agents.user["semantic"][0] == f"PERGUNTA: {item.question} RESPOSTA: {item.answer}"
    assert "REVISOR" not in agents.system["contextual"][0]  # the others: packaged
