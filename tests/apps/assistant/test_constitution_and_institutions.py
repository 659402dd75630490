"""Issue 31/32: the assistant reads the Constitution and the public institutions by the names
people use. "a constituição", "CF/88", "carta magna" name a norm (so the question is a law
question, and a collection without the Constitution says so); "o TCU", "a CGU", "o INSS" are
searched by the names the law writes ("Tribunal de Contas da União"); and a reading of a
question as about the court that the classifier is unsure of answers from the court's
file only when it says one of an entry's own words."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from colmeia.apps.assistant.dispatch import Dispatcher
from colmeia.apps.assistant.frame import CONFIDENT, read_frame
from colmeia.apps.assistant.institutional import answer_institutional
from colmeia.apps.assistant.institutions import named_institutions
from colmeia.apps.assistant.intents import Prediction
from colmeia.apps.assistant.legal import article_key
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_query import analyze_query
from colmeia.apps.assistant.registry_sqlite import SQLiteCaseRegistry
from colmeia.apps.assistant.scope import NormCatalogue, missing_norm, named_norms
from colmeia.rag.pipeline import ingest
from colmeia.store import Store, open_store
from shared_data import DATA_DIR

CONSTITUTION = DATA_DIR / "laws" / "constituicao" / "lexml"
LAWS = DATA_DIR / "laws" / "lexml"
# the words of the court's example file a user would see for a contacts question
PHONE = "Telefone (exemplo)"


@pytest.fixture(scope="module")
def constitution(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """The Constitution and its ADCT, as shipped, lexical only."""
    store = open_store(str(tmp_path_factory.mktemp("cf") / "cf.db"))
    ingest(store, "docs", [CONSTITUTION])
    return store


def first_cited(store: Store, question: str) -> str:
    result = asyncio.run(RagPipeline(store, "docs", None).run(question))
    return str(result["citations"][0]["label"])


@pytest.mark.parametrize(
    "question",
    [
        "o que a constituição diz sobre o TCU?",
        "segundo a Constituicao Federal, quem julga as contas?",
        "o art. 71 da CF/88",
        "a CF garante o que?",
        "a carta magna fala de licitação?",
        "isso está no texto constitucional?",
    ],
)
def test_the_constitution_is_a_norm_named(question: str) -> None:
    # Red when only numbered norms and their nicknames are read: nothing is named here.
    assert [n.label() for n in named_norms(question)] == ["CF/88"]


def test_a_states_constitution_is_not_the_federal_one() -> None:
    assert named_norms("o que diz a constituição estadual do Pará?") == []
    assert [n.label() for n in named_norms("o ADCT da CF/88")] == ["ADCT (CF/88)", "CF/88"]


def test_the_constitution_is_missing_only_from_a_collection_without_it(
    constitution: Store, tmp_path: Path
) -> None:
    question = "o que a constituição diz sobre o tribunal de contas da união julgar contas?"
    # the Constitution's collection holds it under the name ingestion gave it ("CF/88")
    assert missing_norm(question, NormCatalogue.build(constitution, "docs")) is None
    laws = open_store(str(tmp_path / "laws.db"))
    ingest(laws, "docs", [LAWS / "lei_8078_19900911.csv"])
    said = missing_norm(question, NormCatalogue.build(laws, "docs"))
    # Red without the Constitution's names: a tenant without it is answered from its laws
    assert said is not None
    assert said.startswith("CF/88 não está entre os documentos desta coleção")
    assert "Lei 8.078/1990" in said


async def test_a_question_naming_the_constitution_is_not_answered_with_the_courts_phone(
    registry: SQLiteCaseRegistry,
) -> None:
    question = "o que a constituicao diz sobre o tribunal de contas da uniao julgar contas?"
    frame = read_frame(question)
    decision = await Dispatcher(registry, rag=None).decide(frame, [])
    # Red before: read as about the court, its file's "contatos" entry answered
    assert decision.kind == "law"
    assert decision.law == question
    # however sure the reading as about the court, the norm named makes it a law question
    sure = Prediction("institutional", "status", {"institutional": 0.9})
    decision = await Dispatcher(registry, rag=None).decide(read_frame(question, predicted=sure), [])
    assert decision.kind == "law"


async def test_an_unsure_reading_never_answers_from_the_file_by_letters_shared(
    registry: SQLiteCaseRegistry,
) -> None:
    # "contas" shares its letters with the file's "contatos": likeness, not meaning
    question = "o que diz sobre o tribunal de contas da uniao julgar contas?"
    unsure = Prediction("institutional", "status", {"institutional": 0.6, "law": 0.4})
    assert unsure.confidence < CONFIDENT
    decision = await Dispatcher(registry, rag=None).decide(
        read_frame(question, predicted=unsure), []
    )
    # Red when the file is searched for an unsure reading: the court's phone number
    assert decision.kind == "law"
    sure = Prediction("institutional", "status", {"institutional": 0.95})
    decision = await Dispatcher(registry, rag=None).decide(
        read_frame("qual o telefone de vocês?", predicted=sure), []
    )
    assert decision.kind == "answer" and decision.answer is not None
    assert PHONE in decision.answer["text"]


@pytest.mark.parametrize(
    ("question", "topic"),
    [
        ("tem algum email pra falar com vocês?", "contatos"),
        ("que horas abre o atendimento", "horario"),
    ],
)
async def test_an_unsure_reading_that_says_an_entrys_own_word_is_answered_from_the_file(
    registry: SQLiteCaseRegistry, question: str, topic: str
) -> None:
    # unsure it is about the court, but "email" and "horas" are the file's own words: its
    # entry answers, not a law passage about e-mails or working hours
    unsure = Prediction("institutional", "status", {"institutional": 0.55, "law": 0.45})
    decision = await Dispatcher(registry, rag=None).decide(
        read_frame(question, predicted=unsure), []
    )
    # Red when every unsure reading goes to the documents
    assert decision.kind == "answer" and decision.answer is not None
    assert decision.answer.get("topic") == topic


def test_an_institutions_acronym_is_searched_by_the_name_the_law_writes() -> None:
    analysis = analyze_query("o que a constituicao diz sobre o tcu julgar contas?")
    # Red without the glossary: the laws never write "TCU", the search finds other courts
    assert "Tribunal de Contas da União" in analysis["processed"]
    assert analysis["institutions"] == ["Tribunal de Contas da União"]
    # "MP 1.154" is a medida provisória, not the Ministério Público
    assert [i.acronym for i in named_institutions("a MP 1.154 e o MPF")] == ["MPF"]
    assert [i.acronym for i in named_institutions("cadê o processo? me ajuda pf")] == []


@pytest.mark.parametrize(
    ("question", "article"),
    [
        ("o que a constituicao diz sobre o tcu julgar contas?", "CF/88, Art. 71, inciso II"),
        ("o tcu pode multar prefeito?", "CF/88, Art. 71, inciso VIII"),
    ],
)
def test_the_tcu_is_the_constitutions_tribunal_de_contas_da_uniao(
    constitution: Store, question: str, article: str
) -> None:
    # Red without the glossary for the first (Art. 49 IX, the Congress "julgar as contas" of
    # the President); the second shows the name costs nothing where "multar" already leads
    assert first_cited(constitution, question) == article


async def test_the_frame_reads_an_acronym_and_still_tells_a_law_question_from_a_contact(
    registry: SQLiteCaseRegistry,
) -> None:
    law = read_frame("o tcu pode multar prefeito?")
    assert law.institutions == ["Tribunal de Contas da União"]
    assert law.intent == "law"
    contact = read_frame("qual o telefone do tcu?")
    assert contact.institutions == ["Tribunal de Contas da União"]
    decision = await Dispatcher(registry, rag=None).decide(contact, [])
    assert decision.kind == "answer" and decision.answer is not None
    assert decision.answer["agent"] == "institutional"
    assert PHONE in decision.answer["text"]


def test_a_book_about_the_constitution_is_not_the_constitution(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "comentarios.md").write_text(
        "# Comentários à Constituição Federal\n\nO controle externo é exercido pelo Congresso "
        "Nacional com o auxílio do Tribunal de Contas.\n",
        encoding="utf-8",
    )
    store = open_store(str(tmp_path / "books.db"))
    ingest(store, "docs", [folder])
    catalogue = NormCatalogue.build(store, "docs")
    # Red when a title naming the Constitution keys the document as the norm: the book would
    # be "CF/88", and a question on the Constitution answered from it as if from the norm
    assert catalogue.norms == {}
    assert catalogue.other_documents == 1
    assert missing_norm("o que a constituição diz sobre o TCU?", catalogue) is None


@pytest.mark.parametrize(
    "question",
    ["como contestar uma multa do tribunal de contas?", "prazo para prestar contas ao tribunal"],
)
def test_the_courts_accounts_are_not_its_contacts(question: str) -> None:
    # sure it is about the court, the file is searched — but "contas" only shares letters
    # with "contatos": the file says what it holds instead of giving the phone number
    found = answer_institutional(question, sure=True)
    assert found is not None
    # Red when shared letters are likeness enough: the "contatos" entry, the phone number
    assert found.topic == ""
    assert PHONE not in found.answer
    assert "horario, contatos, endereco" in found.answer
    # a typo is still the word: one slip from the file's own
    typed = answer_institutional("como entro em conntato com a ouvidoria?", sure=True)
    assert typed is not None and typed.topic == "contatos"


@pytest.mark.parametrize(
    "question",
    [
        # what the law lets the court do, asked without naming a norm (none of these sentences
        # is in the training banks: they are other words for the same kind of question)
        "o tribunal de contas pode me multar por nao declarar bens?",
        "tcu tem poder de prender alguem?",
        "qual o prazo pra recorrer de uma decisao do tribunal?",
        "quais as competencias do tribunal de contas?",
        "quem escolhe os conselheiros do tribunal de contas?",
    ],
)
async def test_what_the_law_lets_the_court_do_is_a_law_question(
    question: str, registry: SQLiteCaseRegistry
) -> None:
    # Red before the training banks had the court's powers: "tribunal" made these about the
    # court's services, answered "Não tenho essa informação no arquivo do tribunal"
    frame = read_frame(question)
    assert frame.intent == "law"
    assert (await Dispatcher(registry, rag=None).decide(frame, [])).kind == "law"


@pytest.mark.parametrize(
    "question",
    ["o tribunal abre no sabado?", "qual o telefone da ouvidoria", "onde fica o tribunal"],
)
def test_the_courts_services_are_still_asked_of_its_file(question: str) -> None:
    assert read_frame(question).intent == "institutional"


def test_a_dispositivo_that_introduces_a_list_is_quoted_with_its_items(
    constitution: Store,
) -> None:
    result = asyncio.run(
        RagPipeline(constitution, "docs", None).run(
            "como sao escolhidos os ministros do tribunal de contas da uniao?"
        )
    )
    first = result["citations"][0]
    assert first["label"] == "CF/88, Art. 73, § 2º"
    # Red without the items: "Os Ministros do Tribunal de Contas da União serão escolhidos:"
    # and nothing after it
    assert "um terço pelo Presidente da República" in result["answer"]
    assert "dois terços pelo Congresso Nacional" in result["answer"]


@pytest.mark.parametrize(
    ("question", "cited"),
    [
        ("o que diz o artigo 75 da CF?", "CF/88, Art. 75"),
        ("e o art. 73 da constituicao, fala o que?", "CF/88, Art. 73"),
        ("art 27 do adct", "ADCT (CF/88), Art. 27"),
    ],
)
def test_an_article_of_the_constitution_named_is_that_article_not_the_adcts(
    constitution: Store, question: str, cited: str
) -> None:
    # Red before: the Constitution was no norm the query analysis named, so "artigo 75 da
    # CF" was searched by its words (ADCT Art. 84 first); and "CF/88" and "ADCT (CF/88)"
    # shared one key ("88"), so the ADCT's article of the same number passed for the CF's
    assert first_cited(constitution, question).startswith(cited)


def test_the_constitution_and_its_transitional_acts_are_keys_of_their_own() -> None:
    assert article_key("CF/88", "71") == article_key("1988", "71") == "CF:71"
    assert article_key("ADCT (CF/88)", "71") == "ADCT:71" != article_key("CF/88", "71")
    assert article_key("Lei 9.784/1999", "59") == "9784:59"
    assert analyze_query("o art. 71 da constituição estadual")["filters"] == {"article": "71"}
