"""Turns about the court and its own norms the eighth blind set (issue 31) found wrong:

* a norm with no number that a federal collection cannot hold — the court's "regimento
  interno", a town's "estatuto dos servidores", a "lei orgânica", a "lei municipal" — is said
  missing (the regimento got the court's file on filing papers; the statute got law passages);
* "como eu faço pra fazer outra denúncia?", read unsure as the law's, is answered from the
  court's own file when its words are the file's;
* an insult with no question, and a derby's score, get the scope answer.
Offline (no model)."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.frame import TurnFrame, read_frame
from colmeia.apps.assistant.scope import named_norms, out_of_scope


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("qual o prazo de defesa segundo o regimento interno de vcs?", "O regimento interno"),
        (
            "e o estatuto dos servidores de alegrete, oq diz sobre isso?",
            "O estatuto dos servidores do município ou do estado",
        ),
        ("a lei organica do municipio preve isso?", "A lei orgânica do município"),
        ("tem alguma lei municipal sobre isso?", "A lei municipal ou estadual"),
        # the federal statute is a numbered law, named as such
        ("o estatuto do servidor publico federal diz o que", "Lei 8.112/1990"),
    ],
)
def test_a_norm_without_a_number_is_named(text: str, label: str) -> None:
    assert [n.label() for n in named_norms(text)] == [label]


async def test_the_courts_internal_rules_asked_go_to_the_documents_not_the_file() -> None:
    frame = read_frame("qual o prazo de defesa segundo o regimento interno de vcs?")
    frame.intent = "institutional"  # as the classifier read it
    decided = await Dispatcher(None, None).decide(frame, [])
    assert decided.kind == "law"  # where the collection says it does not hold it


async def test_how_to_do_something_at_the_court_is_the_courts_file() -> None:
    text = "e se eu mesma quiser fazer outra denuncia como eu faço"
    decided = await Dispatcher(None, None).decide(TurnFrame(text, "law", "status", 0.5), [])
    assert decided.answer is not None and decided.answer.get("agent") == "institutional", decided
    # a law question asked the same way but naming its law stays the law's
    lai = "como eu faço pra pedir informacao pela lei de acesso a informacao?"
    frame = read_frame(lai)
    frame.intent, frame.confidence = "law", 0.5
    assert (await Dispatcher(None, None).decide(frame, [])).kind == "law"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("vcs sao todos uns incompetentes, uma vergonha", "other"),
        ("quanto ficou o gre-nal ontem", "sport"),
        ("quanto foi o fla-flu no domingo", "sport"),
        # a complaint with a question in it is a question; a sum asked is no score
        ("voces sao uma vergonha, meu processo ta parado ha 2 anos?", None),
        ("quanto foi o reajuste ontem?", None),
    ],
)
def test_insults_and_scores_are_out_of_scope(text: str, kind: str | None) -> None:
    found = out_of_scope(text)
    assert (found.kind if found else None) == kind
