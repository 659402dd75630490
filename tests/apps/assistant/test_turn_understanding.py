"""Issue 31, the understanding side: norms named as people name them (a missing one is said),
an article named is the article cited, a question about the court is answered from the court's
file, and the frame reads the weak kinds (mixed without a conjunction, out of scope of other
kinds, institutional) from what it learnt, not from a rule per sentence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from colmeia.apps.assistant.case_refs import read_case_refs
from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.dispatch_decision import Decision
from colmeia.apps.assistant.frame import CONFIDENT, read_frame
from colmeia.apps.assistant.institutional import answer_institutional
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.scope import NormCatalogue, missing_norm, named_norms, out_of_scope
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("oq a 8666/93 fala sobre dispensa?", "Lei 8.666/93"),
        ("pela 9.784 pode demorar?", "Lei 9.784"),
        ("a clt fala oq sobre ferias?", "Decreto-Lei 5.452/1943"),
        ("o que o código civil diz de contrato", "Lei 10.406/2002"),
        ("o cdc protege quem comprou pela internet?", "Lei 8.078/1990"),
        # a long name word typed with a slip still names the norm
        ("a prescricao no codgo penal", "Decreto-Lei 2.848/1940"),
        ("o estatudo do idoso garante o que?", "Lei 10.741/2003"),
    ],
)
def test_a_norm_is_read_without_the_word_lei(question: str, label: str) -> None:
    # Red when only "lei NNNN" is read: no norm at all in these questions.
    assert [n.label() for n in named_norms(question)] == [label]


def test_a_norm_named_without_lei_and_not_held_is_said_missing(laws_store: Store) -> None:
    catalogue = NormCatalogue.for_collection(laws_store, "leis")
    said = missing_norm("oq a 8666/93 fala de licitacao dispensada", catalogue)
    assert said is not None and said.startswith("Lei 8.666/93 não está")
    said = missing_norm("a clt fala o que sobre ferias?", catalogue)
    assert said is not None and said.startswith("Decreto-Lei 5.452/1943 não está")
    # the CDC is held (Lei 8.078/1990): nothing is said, the law answers
    assert missing_norm("o que o cdc diz sobre garantia?", catalogue) is None


def test_a_feminine_article_before_a_number_names_a_law_not_a_case() -> None:
    # "a 8666/93" is "a lei"; "o 4506/23" is "o processo"
    assert read_case_refs("oq a 8666/93 fala de licitacao") == []
    (ref,) = read_case_refs("e o 4506/23, como ta?")
    assert (ref.number, ref.year) == (4506, 2023)


@pytest.mark.parametrize(
    ("question", "law", "article"),
    [
        ("o que diz o art. 49 da lei 9.784?", "Lei 9.784/1999", "49"),
        ("me explica o artigo 2 da lei 9784", "Lei 9.784/1999", "2"),
        ("qual o teor do artigo 5 da Lei 13.709", "Lei 13.709/2018", "5"),
    ],
)
async def test_an_article_named_is_the_article_cited_first(
    laws_store: Store, question: str, law: str, article: str
) -> None:
    # Red without the exact lookup: Art. 49-A / 49-G, Art. 12 or Art. 8 came first.
    result = await RagPipeline(laws_store, "leis").run(question)
    first = result["citations"][0]
    assert (first["law"], str(first["article"]).rstrip("º°")) == (law, article)


def test_a_question_about_the_court_is_answered_from_its_file_even_with_a_typo() -> None:
    # below the file's own threshold when the reading is not known to be institutional
    assert answer_institutional("qual o enndereco do tribunal?") is None
    found = answer_institutional("qual o enndereco do tribunal?", sure=True)
    assert found is not None and found.topic == "endereco"
    assert "Avenida Exemplo" in found.answer
    # a topic the file does not hold: said, with what the file holds — not law passages
    unknown = answer_institutional("qual o cnpj do tribunal?", sure=True)
    assert unknown is not None and unknown.topic == ""
    assert "horario, contatos, endereco" in unknown.answer


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # a case part and a law part with no conjunction between them
        ("o processo 12/2024 esta parado faz tempo a lei 9.784 permite isso?", "mixed"),
        ("quem relata o tc 12/2024 - qual o prazo de recurso na lei 9.784?", "mixed"),
        # out of scope of kinds the common word banks do not list
        ("voce sabe qual pizzaria entrega mais rapido?", "scope"),
        ("me recomenda uma serie de comedia", "scope"),
        # about the court itself
        ("o tribunal tem estacionamento?", "institutional"),
        ("qual o email do protocolo de vcs", "institutional"),
        # a follow-up sent as the first message: a case question without its case
        ("e quem é o relator?", "case"),
    ],
)
def test_the_frame_reads_the_weak_kinds(text: str, intent: str) -> None:
    frame = read_frame(text)
    assert frame.intent == intent
    if intent == "scope":
        assert frame.confidence >= CONFIDENT  # sure enough to answer so, not from the laws


async def test_a_confident_case_reading_without_a_case_asks_which(registry_file: Path) -> None:
    # no number, no thread, no case word the rules list ("processo", "relator"…): what the
    # classifier learnt decides it is about a case, so the person is asked which one
    frame = read_frame("e em que pe esta?")
    assert frame.intent == "case" and not frame.cases
    registry = SQLiteCaseRegistry(registry_file)
    try:
        decision = await Dispatcher(registry, rag=None).decide(frame, [])
    finally:
        registry.close_sync()
    # Red when only the word list counts: the turn goes to the law search instead
    assert decision.kind == "ask"


async def test_a_turn_naming_a_norm_and_no_case_is_a_law_question(registry_file: Path) -> None:
    # the classifier leans to "case" here; the norm named (a formal part) settles it
    frame = read_frame("a 8.429 pune quem?")
    assert [n.label() for n in frame.norms] == ["Lei 8.429"]
    registry = SQLiteCaseRegistry(registry_file)
    try:
        decision = await Dispatcher(registry, rag=None).decide(frame, [])
    finally:
        registry.close_sync()
    # Red when the learnt case reading wins: "de qual processo?" instead of the law search
    assert decision.kind == "law"


@pytest.fixture
def rules_store(tmp_path: Path) -> Iterator[Store]:
    """A collection that is not law: a university's rules (written for this test)."""
    folder = tmp_path / "regras"
    folder.mkdir()
    (folder / "regulamento.md").write_text(
        "# Regulamento de pós-graduação\n\n"
        "A banca examinadora da dissertação deve ser composta por três docentes, "
        "sendo ao menos um externo ao programa.\n\n"
        "# História\n\n"
        "A Universidade de Berlim, fundada em 1810, ficou conhecida como a primeira "
        "universidade moderna.\n",
        encoding="utf-8",
    )
    store = open_store(f"sqlite:///{tmp_path / 'regras.db'}")
    ingest(store, "regras", [folder])
    yield store
    store.close()


@pytest.mark.parametrize("question", ["Como ficou conhecida a primeira universidade moderna?"])
async def test_a_scope_reading_yields_to_documents_that_cover_the_question(
    rules_store: Store, registry_file: Path, question: str
) -> None:
    # The classifier learnt scope from questions about courts and laws and reads these as out
    # of scope; the collection holds their answer, so the documents answer.
    frame = read_frame(question)
    assert frame.intent == "scope"
    registry = SQLiteCaseRegistry(registry_file)
    try:
        dispatcher = Dispatcher(registry, rag=RagPipeline(rules_store, "regras"))
        decision = await dispatcher.decide(frame, [])
        # Red without the documents' say: the scope answer, with nothing from the rules
        assert decision.kind == "law"
        # ...while what the documents do not cover keeps its scope answer
        lottery = await dispatcher.decide(read_frame("qual o resultado da loteria?"), [])
        assert lottery.kind == "answer" and lottery.answer is not None
        assert lottery.answer["agent"] == "main"
    finally:
        registry.close_sync()


@pytest.mark.parametrize(
    "text",
    [
        "minha geladeira estragou na garantia, a loja tem que trocar?",
        "e se a loja nao devolver o dinheiro?",
        "o mercado cobrou no caixa mais caro que na prateleira, pode?",
        "um site ta mandando propaganda com meu email sem eu ter cadastrado, isso pode?",
    ],
)
def test_a_situation_of_ones_own_asked_as_a_right_is_a_law_question(text: str) -> None:
    # Sentences the training corpus does not hold: what it learnt is a situation told in lay
    # words then a right asked about (turngen/trainlex.py LAW_SITUATIONS). Red with the
    # classifier trained without them (scope, scope, unsure, institutional).
    got = read_frame(text)
    assert (got.intent, got.confidence >= CONFIDENT) == ("law", True)


@pytest.mark.parametrize("text", ["voce acha que eu devo me separar?", "me indica um bar bom"])
def test_personal_advice_stays_out_of_scope(text: str) -> None:
    assert read_frame(text).intent == "scope"


async def _decided(laws: Store, registry_file: Path, text: str) -> Decision:
    """What the dispatcher decides for ``text`` as a first turn, offline."""
    registry = SQLiteCaseRegistry(registry_file)
    try:
        return await Dispatcher(registry, rag=RagPipeline(laws, "leis")).decide(
            read_frame(text), []
        )
    finally:
        registry.close_sync()


@pytest.mark.parametrize(
    "text",
    ["conta uma piada de advogado", "faz um poema sobre o tribunal", "queria uma musica pro tce"],
)
async def test_a_piece_of_writing_asked_for_is_out_of_scope_whatever_its_subject(
    laws_store: Store, registry_file: Path, text: str
) -> None:
    # red before: the laws hold advocates and courts (CF Art. 133, ADCT Art. 7), so the
    # documents "covered" a joke about one and the joke got constitutional passages
    decision = await _decided(laws_store, registry_file, text)
    assert decision.kind == "answer" and decision.answer is not None
    assert decision.answer.get("scope") == "other"
    assert decision.answer["text"].startswith("Esse assunto está fora do que posso responder")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("o clube pode ser punido se o torcedor brigar no campeonato?", "law"),
        ("o clube de futebol tem que seguir o codigo do consumidor na venda de ingresso?", "law"),
        ("quem ganhou o campeonato brasileiro?", "answer"),
        ("vai chover amanha em belem?", "answer"),
    ],
)
async def test_a_sport_named_in_a_law_question_is_its_situation_not_a_request_for_results(
    laws_store: Store, registry_file: Path, text: str, kind: str
) -> None:
    # red before: "campeonato" and "futebol" sent both law questions to the sports answer
    decision = await _decided(laws_store, registry_file, text)
    assert decision.kind == kind
    if kind == "answer":
        assert decision.answer is not None and decision.answer["scope"] in ("sport", "weather")


def test_the_law_on_jokes_is_still_a_law_question() -> None:
    assert out_of_scope("o que diz a lei sobre piadas racistas?") is None
    assert out_of_scope("quero uma cópia da redação do acórdão") is None


async def test_a_rules_question_is_read_as_one_for_the_documents(
    rules_store: Store, registry_file: Path
) -> None:
    # read as out of scope before the situations were learnt; now the documents' at once
    frame = read_frame("por quantos docentes deve ser composta a banca examinadora?")
    registry = SQLiteCaseRegistry(registry_file)
    try:
        decision = await Dispatcher(registry, rag=RagPipeline(rules_store, "regras")).decide(
            frame, []
        )
        assert frame.intent == "law" and decision.kind == "law"
    finally:
        registry.close_sync()
