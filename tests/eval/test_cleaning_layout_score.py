"""The real-layout cleaning score counts each defect it names: a glued footnote, a mark left on
its word, a flattened table row, a wrong hyphen join, a split drop capital, a broken citation
list and a source glued to running text each cost one."""

from __future__ import annotations

from colmeia.eval.cleaning_layout import score_layout_cleaning

GOLD = {
    "blocks": [
        {
            "kind": "paragraph",
            "dropcap": True,
            "text": "Este estudo trata dos modelos e das condições sócio-econômicas das famílias "
            "(SILVA, 2019; SOUZA, 2020) no trabalho coletivo.[^Ver o apêndice A.]",
        },
        {
            "kind": "table",
            "caption": "Tabela 1 – Escolas",
            "rows": [["Escola", "Docentes"], ["A", "10"], ["B", "14"]],
            "source": "Fonte: <http://exemplo.br/dados>",
        },
    ]
}
RAW = "Este estudo trata dos mode-\nlos e das condições sócio-\neconômicas das famílias"
BODY = (
    "Este estudo trata dos modelos e das condições sócio-econômicas das famílias "
    "(SILVA, 2019; SOUZA, 2020) no trabalho coletivo."
)
CLEAN = [
    BODY,
    "Tabela 1 – Escolas",
    "Escola | Docentes\nA | 10\nB | 14",
    "Fonte: <http://exemplo.br/dados>",
    "1 Ver o apêndice A.",
]


def test_a_clean_output_scores_one_and_no_defects() -> None:
    score = score_layout_cleaning(GOLD, CLEAN, RAW)
    assert score["char_similarity"] == 1.0
    assert score["line_end_breaks"] == 2
    assert [
        k
        for k, v in score.items()
        if isinstance(v, int) and v and k not in ("chars", "line_end_breaks")
    ] == []


def test_each_defect_is_counted() -> None:
    broken = (
        "E ste estudo trata dos mode-los e das condições sócioeconômicas das famílias (SILVA, 2019;"
    )
    dirty = [
        broken,
        "SOUZA, 2020) no trabalho coletivo.1 Ver o apêndice A. Escola Docentes A 10 B 14",
        "Fonte: <http://exemplo.br/dados> trata dos modelos e das condições",
    ]
    score = score_layout_cleaning(GOLD, dirty, RAW)
    assert score["char_similarity"] < 0.9
    assert score["split_drop_caps"] == 1
    assert score["wrong_hyphen_joins"] == 2  # "mode-los", "sócioeconômicas"
    assert score["broken_citations"] == 1
    assert score["tables_in_text"] == 2
    assert score["note_marks_on_words"] == 1
    assert score["footnotes_glued"] == 1
    assert score["sources_glued"] == 1
