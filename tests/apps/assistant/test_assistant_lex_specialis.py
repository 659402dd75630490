"""Lex specialis in the ranking: an article whose rule is for some bodies only (the federal
executive) gives way to the general rule when the question names none of them, and stays
first when the question is about those bodies (real SQLite store, LexML rows)."""

from __future__ import annotations

from pathlib import Path

import pytest

from colmeia.apps.assistant.lex_specialis import limited_to_some_bodies, names_a_body
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.rag.pipeline import ingest
from colmeia.store import open_store

EMENTA = "Regula o acesso a informações"
ROWS = [
    (
        "art15_cpt",
        "Art. 15",
        "No caso de indeferimento de acesso a informações ou às razões da negativa do acesso, "
        "poderá o interessado interpor recurso contra a decisão no prazo de 10 (dez) dias a "
        "contar da sua ciência.",
    ),
    (
        "art16_cpt",
        "Art. 16",
        "Negado o acesso a informação pelos órgãos ou entidades do Poder Executivo Federal, o "
        "requerente poderá recorrer à Controladoria-Geral da União, que deliberará no prazo "
        "de 5 (cinco) dias se o acesso à informação negado for não classificado.",
    ),
    (
        "art11_cpt",
        "Art. 11",
        "O órgão ou entidade pública deverá autorizar ou conceder o acesso imediato à "
        "informação disponível.",
    ),
]


def _write_law(folder: Path) -> None:
    folder.mkdir()
    lines = ["Tipo,Rotulo,Num_Inicio,Num_Final,Texto,urn"]
    for n, (urn, label, text) in enumerate(ROWS):
        lines.append(
            f'"CPT","lei_12527_20111118, {label}., caput",{2 * n},{2 * n + 1},'
            f'"[ {EMENTA} | DOS RECURSOS | ] {text}",'
            f"urn:lex:br:federal:lei:2011-11-18;12527!{urn}"
        )
    (folder / "lei_12527_20111118.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("question", "article"),
    [
        # no body named: the general rule answers, not the one for the federal executive
        ("Se negarem o acesso a informação, posso recorrer?", "15"),
        # the question is about the federal executive: the special rule answers
        (
            "Se um ministério do governo federal negar meu pedido de acesso à informação, "
            "posso recorrer?",
            "16",
        ),
    ],
)
async def test_the_general_rule_answers_when_no_body_is_named(
    tmp_path: Path, question: str, article: str
) -> None:
    _write_law(tmp_path / "lexml")
    store = open_store(f"sqlite:///{tmp_path / 'lei.db'}")
    ingest(store, "leis", [tmp_path / "lexml"])
    try:
        result = await RagPipeline(store, "leis").run(question)
    finally:
        store.close()
    assert result["citations"][0]["article"] == article


def test_what_limits_a_rule_and_what_names_a_body() -> None:
    assert limited_to_some_bodies(
        "Negado o acesso pelos órgãos ou entidades do Poder Executivo Federal"
    )
    assert limited_to_some_bodies("No âmbito da administração pública federal, a reavaliação…")
    assert not limited_to_some_bodies("O órgão ou entidade pública deverá autorizar o acesso.")
    assert names_a_body("um ministério negou meu pedido")
    assert names_a_body("no governo federal")
    assert not names_a_body("a prefeitura negou meu pedido, posso recorrer?")
