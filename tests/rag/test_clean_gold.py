"""Cleaning keeps what a thesis means: compounds broken at their own hyphen stay hyphenated
(a Portuguese word list decides, not a hand list), captions and "Fonte:" lines are set apart
from the running text, and paragraphs marked by a first-line indent are not cut before a
capitalised line. Measured on the shipped ground truth (data/cleaning/gold.json), laid out as a
PDF by bench/clean_quality.py and read back by the extractor."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from colmeia.eval.cleaning import expected_text, score_cleaning
from colmeia.rag.ingest.clean import clean_pages, join_lines
from colmeia.rag.types import Page
from shared_data import DATA_DIR

ROOT = Path(__file__).resolve().parents[2]


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "clean_quality", ROOT / "bench" / "clean_quality.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ground_truth_pdf_is_cleaned_back_to_its_text() -> None:
    figures = _bench().measure(DATA_DIR / "cleaning" / "gold.json")
    assert figures["counts"] == {"paragraphs": 12, "words": 7, "compounds": 6, "set_apart": 9}
    assert figures["compounds_kept"] == 1.0, figures["misses"]  # político-pedagógico, bem-estar…
    assert figures["broken_words_joined"] == 1.0, figures["misses"]  # sexualidade, análise…
    assert figures["captions_sources_set_apart"] == 1.0, figures["misses"]
    assert figures["captions_sources_glued"] == 0
    assert (figures["false_breaks"], figures["false_joins"]) == (0, 0)
    assert figures["paragraph_recall"] == 1.0, figures["misses"]


@pytest.mark.parametrize(
    ("lines", "word"),
    [
        (["o projeto político-", "pedagógico da escola"], "político-pedagógico"),
        (["o bem-", "estar dos estudantes"], "bem-estar"),
        (["uma leitura contra-", "hegemônica do currículo"], "contra-hegemônica"),  # prefix + h
        (["a informa-", "ção disponível"], "informação"),  # "ção" is no word
        (["o desenvolvi-", "mento infantil"], "desenvolvimento"),
        (["a auto-", "estima das alunas"], "autoestima"),  # the fused form is the word
        (["entrevistas semi-", "estruturadas com docentes"], "semiestruturadas"),  # prefix rule
        (["um anti-", "inflamatório comum"], "anti-inflamatório"),  # same vowel: hyphen stays
    ],
)
def test_a_line_end_hyphen_is_kept_only_for_compounds(lines: list[str], word: str) -> None:
    assert word in join_lines(lines)[0]


def test_the_documents_own_spelling_wins_over_the_word_list() -> None:
    # "web" and "conferência" are words and the list lacks "webconferência"; the document
    # writes it fused elsewhere, so the hyphen was only the line end's.
    lines = [
        "as aulas por webconferência foram gravadas; cada web-",
        "conferência durou duas horas e reuniu as professoras da rede.",
    ]
    [page] = clean_pages([Page(1, "\n".join(lines))])
    assert "cada webconferência durou" in page.text
    [page] = clean_pages([Page(1, "\n".join(["as aulas foram gravadas; cada web-", lines[1]]))])
    assert "cada web-conferência durou" in page.text


def test_a_caption_and_its_source_are_set_apart_and_the_text_around_them_rejoins() -> None:
    lines = [
        "A escola analisada organiza as turmas em três turnos, como mostra a figura, que",
        "Figura 1 – Distribuição das turmas por turno",
        "manhã 12   tarde 9   noite 4",
        "Fonte: Secretaria Municipal de Educação (2019).",
        "resume os registros da secretaria da escola no ano de 2019, último ano estudado.",
    ]
    assert join_lines(lines) == [
        "A escola analisada organiza as turmas em três turnos, como mostra a figura, que "
        "resume os registros da secretaria da escola no ano de 2019, último ano estudado.",
        "Figura 1 – Distribuição das turmas por turno",
        "manhã 12   tarde 9   noite 4",
        "Fonte: Secretaria Municipal de Educação (2019).",
    ]
    # "Tabela 1 mostra…" is a sentence about a table, not a caption.
    assert (
        len(join_lines(["A Tabela 1 mostra o total", "Tabela 1 mostra que o total cresceu."])) == 1
    )


def test_an_indented_paragraph_is_not_cut_before_a_capitalised_full_line() -> None:
    lines = [
        "\tProfessoras entrevistadas relatam insegurança diante de temas polêmicos. A",
        "literatura da área aponta o mesmo descompasso entre as práticas.",
        "Segundo as diretrizes municipais, cabe à escola promover o respeito às diferenças",
        "e prevenir a violência, sem formação continuada que apoie esse trabalho.",
        "\tO objetivo geral é compreender como egressas mobilizam os conhecimentos.",
    ]
    paragraphs = join_lines(lines)
    assert len(paragraphs) == 2
    assert paragraphs[1].startswith("O objetivo geral")


def test_the_ground_truth_annotations_read_as_documented() -> None:
    gold = json.loads((DATA_DIR / "cleaning" / "gold.json").read_text(encoding="utf-8"))
    text, breaks = expected_text(gold["pages"][0][1])
    assert "sexualidade na escola" in text and "político-pedagógico" in text
    assert [b.kind for b in breaks] == ["word", "compound"]
    perfect = [expected_text(b)[0] for page in gold["pages"] for b in page]
    assert score_cleaning(gold["pages"], perfect).as_dict()["paragraph_precision"] == 1.0
