"""The Constitution in the shipped legal collection: every labelled dispositivo of the
Associação Brasileira de Jurimetria's CSV is one passage cited down to its alínea, and the
courts of accounts' charter (Arts. 70–75) is found by what it says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from colmeia.apps.assistant.legal import parse_legal_path
from colmeia.rag.ingest.constitution import (
    ConstitutionLine,
    read_constitution,
    roman,
    write_constitution_lexml,
)
from colmeia.rag.pipeline import PrepareOptions, prepare_file
from colmeia.rag.retrieve import Retriever
from colmeia.store import open_store
from shared_data import DATA_DIR

LABELLED = DATA_DIR / "laws" / "constituicao" / "20200826_EMC108.csv"
SHIPPED = DATA_DIR / "laws" / "constituicao" / "lexml" / "constituicao_1988_19881005.csv"
# "§ 4º (Revogado).", "Art. 171. (Revogado).", "IV - (revogado);": a label, then only the note.
REPEALED = re.compile(
    r"(?:Parágrafo único\.?|Art\.\s*\S+|§\s*\S+|\S+\s*-|\S+)\s*\((?:revogad|vetad)\w*\)[.;]?(?: e)?",
    re.I,
)
SHIPPED_ADCT = DATA_DIR / "laws" / "constituicao" / "lexml" / "adct_1988_19881005.csv"


def expected_path(line: ConstitutionLine) -> tuple[str, str, str, str, str]:
    """(law, article, paragraph, inciso, alínea) as a citation must name the labelled line."""
    law = "ADCT (CF/88)" if line.adct else "CF/88"
    paragraph = ""
    if line.paragrafo:
        paragraph = "único" if line.text.lower().startswith("parágrafo único") else line.paragrafo
    inciso = ""
    if line.inciso:
        number, _, suffix = line.inciso.partition("-")
        inciso = roman(int(number)) + (f"-{suffix}" if suffix else "")
    alinea = chr(ord("a") + int(line.alinea) - 1) if line.alinea else ""
    return law, line.artigo, paragraph, inciso, alinea


def chunk_paths(path: Path) -> dict[tuple[str, str, str, str, str], str]:
    """What the ingestion chunker makes of a shipped file: citation parts → passage text."""
    prepared = prepare_file(path, PrepareOptions("auto", None, None, None))
    assert prepared.errors == []
    out: dict[tuple[str, str, str, str, str], str] = {}
    for _, _, chunks in prepared.documents:
        for chunk in chunks:
            ref = parse_legal_path(chunk.path)
            key = (ref.law, ref.article, ref.paragraph.replace("º", ""), ref.inciso, ref.alinea)
            assert key not in out, f"two passages cite {chunk.path}"
            out[key] = chunk.text
    return out


def test_the_shipped_constitution_is_what_the_labelled_csv_builds(tmp_path: Path) -> None:
    counts = write_constitution_lexml(LABELLED, tmp_path)
    assert counts == {"constituicao_1988_19881005": 2345, "adct_1988_19881005": 547}
    for shipped in (SHIPPED, SHIPPED_ADCT):
        assert (tmp_path / shipped.name).read_bytes() == shipped.read_bytes(), (
            f"{shipped.name} is stale: run data/laws/constituicao/build_lexml.py"
        )


def test_every_labelled_dispositivo_is_one_passage_cited_down_to_the_alinea() -> None:
    passages = chunk_paths(SHIPPED) | chunk_paths(SHIPPED_ADCT)
    lines = [ln for ln in read_constitution(LABELLED) if ln.kind != "titartb"]
    repealed = {expected_path(ln) for ln in lines if REPEALED.fullmatch(ln.text)}
    first: dict[tuple[str, str, str, str, str], ConstitutionLine] = {}
    for ln in lines:
        first.setdefault(expected_path(ln), ln)
    # Repealed dispositivos have no text in force and are not indexed (as in the LexML laws).
    assert set(passages) == set(first) - repealed
    assert len(passages) == 2892 - len(repealed)
    for key, line in first.items():
        if key not in repealed:
            # The passage is the line's own text (its label, "Art. 71." or "§ 1º", is the
            # citation's): compare where they end.
            assert line.text.endswith(" ".join(passages[key].split()[-4:])), key


def test_labels_name_incisos_in_roman_and_alineas_by_letter() -> None:
    passages = chunk_paths(SHIPPED)
    assert passages["CF/88", "71", "", "II", ""].startswith("II - julgar as contas")
    assert passages["CF/88", "5", "", "LXXIII", ""].startswith("LXXIII - qualquer cidadão")
    assert passages["CF/88", "102", "", "I", "q"].startswith("q) o mandado de injunção")
    assert passages["CF/88", "103-B", "4", "II", ""].startswith("II - zelar")
    assert passages["CF/88", "73", "", "", ""].startswith("O Tribunal de Contas da União")


@pytest.fixture(scope="module")
def constitution_store(tmp_path_factory: pytest.TempPathFactory) -> Retriever:
    from colmeia.rag.pipeline import ingest

    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('cf') / 'cf.db'}")
    report = ingest(store, "leis", [SHIPPED, SHIPPED_ADCT])
    assert report.errors == []
    return Retriever(store, "leis")


@pytest.mark.parametrize(
    ("question", "cited"),
    [
        (
            "quem julga as contas dos administradores de dinheiros públicos",
            "CF/88, Art. 71, inciso II",
        ),
        (
            "quem pode denunciar irregularidades ao Tribunal de Contas da União",
            "CF/88, Art. 74, § 2º",
        ),
        ("quantos Ministros integram o Tribunal de Contas da União", "CF/88, Art. 73"),
        (
            "tribunais de contas dos Estados e conselhos de contas dos Municípios normas aplicáveis",
            "CF/88, Art. 75",
        ),
        (
            "fiscalização contábil financeira orçamentária operacional e patrimonial da União",
            "CF/88, Art. 70",
        ),
    ],
)
def test_the_courts_of_accounts_charter_is_found_and_cited(
    constitution_store: Retriever, question: str, cited: str
) -> None:
    top = constitution_store.search(question, k=3)
    assert cited in [h.citation.path for h in top], [h.citation.path for h in top]


def test_the_adct_is_its_own_norm_so_art_71_is_never_confused(
    constitution_store: Retriever,
) -> None:
    top = constitution_store.search("Fundo Social de Emergência saneamento financeiro", k=1)
    assert top[0].citation.path == "ADCT (CF/88), Art. 71"


async def test_the_assistant_cites_the_constitution_down_to_the_inciso(
    constitution_store: Retriever,
) -> None:
    from colmeia.apps.assistant.rag_agent import RagPipeline

    result = await RagPipeline(constitution_store.store, "leis").run(
        "Quem julga as contas dos administradores e responsáveis por dinheiros públicos?"
    )
    first = result["citations"][0]
    assert (first["law"], first["article"], first["inciso"]) == ("CF/88", "71", "II")
    assert first["label"] == "CF/88, Art. 71, inciso II"
    assert first["source"] == "Constituição Federal"
