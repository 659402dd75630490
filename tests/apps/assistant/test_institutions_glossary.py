"""The glossary of public institutions' acronyms: what a question names ("o TCU", "a CGU",
"o INSS") and how a search spells it out, as the law writes it."""

from __future__ import annotations

from colmeia.apps.assistant.institutions import glossary, named_institutions, spell_out


def test_the_shipped_glossary_names_the_usual_public_bodies() -> None:
    names = glossary()
    assert names["tcu"] == "Tribunal de Contas da União"
    assert names["cgu"] == "Controladoria-Geral da União"
    assert names["inss"] == "Instituto Nacional do Seguro Social"
    assert names["anpd"] == "Autoridade Nacional de Proteção de Dados"
    # everyday words and chat abbreviations are no acronym: "cadê", "por favor"
    assert "cade" not in names and "pf" not in names


def test_a_question_names_each_institution_once_in_order_where_it_typed_it() -> None:
    question = "O INSS e o TCU: o tcu fiscaliza o INSS?"
    found = named_institutions(question)
    assert [i.acronym for i in found] == ["INSS", "TCU"]
    assert [question[i.start : i.end] for i in found] == ["INSS", "TCU"]


def test_the_longest_acronym_wins_and_a_state_suffix_does_not_hide_it() -> None:
    assert [i.acronym for i in named_institutions("o MPF e o MPT")] == ["MPF", "MPT"]
    assert [i.acronym for i in named_institutions("o TCE-PA julgou")] == ["TCE"]
    # inside a word or a number it is no acronym
    assert named_institutions("tcudo, stfx, 12tcu") == []


def test_a_medida_provisoria_is_not_the_ministerio_publico() -> None:
    for said in ("a MP 1.154/2023", "a MP nº 936", "a mp n. 936"):
        assert named_institutions(said) == [], said
    assert [i.name for i in named_institutions("o MP pode investigar?")] == ["Ministério Público"]


def test_a_search_spells_the_acronym_out_beside_it_or_in_its_place() -> None:
    assert spell_out("o TCU pode multar?") == "o TCU (Tribunal de Contas da União) pode multar?"
    assert spell_out("o TCU pode multar?", keep=False) == (
        "o Tribunal de Contas da União pode multar?"
    )
    assert spell_out("sem sigla nenhuma") == "sem sigla nenhuma"
    # accents kept as typed around the acronym
    assert spell_out("a ANPD é órgão?", keep=False) == (
        "a Autoridade Nacional de Proteção de Dados é órgão?"
    )
