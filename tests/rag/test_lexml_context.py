"""A LexML dispositivo is indexed with its context: an inciso with its chapter and section
headings (LexML gives it only its parent's text), a paragraph with the words of its caput ("o
direito previsto neste artigo" is the caput's right). A question in the words of the heading
or the caput then reaches the dispositivo that answers it, even when the dispositivo's own
text shares none of them; on the caput's own words the caput still comes first."""

from __future__ import annotations

from pathlib import Path

from colmeia.rag.ingest.csv_records import iter_csv_records
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.store import open_store

HEADER = "Tipo,Rotulo,Num_Inicio,Num_Final,Texto,urn\n"
EMENTA = "Dispõe sobre a proteção do consumidor."
URN = "urn:lex:br:federal:lei:1990-09-11;8078!"
ROWS = [
    (
        "CPT",
        "Art. 49., caput",
        f"[ {EMENTA} | DA PROTEÇÃO CONTRATUAL | Do Arrependimento | ] O consumidor pode "
        "desistir do contrato no prazo de sete dias, sempre que a contratação ocorrer fora do "
        "estabelecimento comercial.",
        "art49_cpt",
    ),
    (
        "PAR",
        "Art. 49., § 1º",
        f"[ {EMENTA} | DA PROTEÇÃO CONTRATUAL | Do Arrependimento | ] Exercido o direito "
        "previsto neste artigo, os valores pagos serão devolvidos de imediato.",
        "art49_par1",
    ),
    (
        "PAR",
        "Art. 49., § 2º",
        f"[ {EMENTA} | DA PROTEÇÃO CONTRATUAL | Do Arrependimento | ] O regulamento disporá "
        "sobre a forma da comunicação.",
        "art49_par2",
    ),
    (
        "CPT",
        "Art. 51., caput",
        f"[ {EMENTA} | DO CONTROLE | ] O Conselho de Contas, integrado por nove membros, "
        "tem sede na capital.",
        "art51_cpt",
    ),
    (
        "PAR",
        "Art. 51., § 1º",
        f"[ {EMENTA} | DO CONTROLE | ] Os membros do Conselho de Contas serão nomeados pelo "
        "Presidente.",
        "art51_par1",
    ),
    (
        "CPT",
        "Art. 50., caput",
        f"[ {EMENTA} | DA OFERTA | Da Publicidade | ] O fornecedor deve informar no anúncio:",
        "art50_cpt",
    ),
    (
        "INC",
        "Art. 50., caput, Inciso I",
        f"[ {EMENTA} | Art. 50. O fornecedor deve informar no anúncio: ] I – o preço total;",
        "art50_cpt_inc1",
    ),
]


def _write(folder: Path) -> Path:
    path = folder / "lei_8078_19900911.csv"
    lines = [
        f'"{kind}","lei_8078_19900911, {label}",1,2,"{text}",{URN}{tail}\n'
        for kind, label, text, tail in ROWS
    ]
    path.write_text(HEADER + "".join(lines), encoding="utf-8")
    return path


def test_each_dispositivo_carries_its_headings_and_its_caput(tmp_path: Path) -> None:
    records = iter_csv_records(_write(tmp_path), id_column="urn", text_column="Texto")
    heading = {r.metadata["path"]: r.metadata["heading"] for r in records}
    assert heading["Lei 8.078/1990, Art. 49"] == "DA PROTEÇÃO CONTRATUAL > Do Arrependimento"
    # a paragraph is read with the rule it completes: the caput's words it does not say
    # itself, once each (what both say is not doubled, see the search test below)
    paragraph = heading["Lei 8.078/1990, Art. 49, § 1º"]
    assert paragraph.startswith("DA PROTEÇÃO CONTRATUAL > Do Arrependimento > Art 49 ")
    assert {"desistir", "contrato", "sete", "dias", "estabelecimento"} <= set(paragraph.split())
    assert "direito" not in paragraph.split()  # the paragraph's own word
    # the inciso gets its article's headings in front of the parent text LexML gives it
    assert heading["Lei 8.078/1990, Art. 50, inciso I"] == (
        "DA OFERTA > Da Publicidade > Art. 50. O fornecedor deve informar no anúncio:"
    )


def test_a_lay_question_in_the_caputs_and_headings_words_reaches_the_dispositivo(
    tmp_path: Path,
) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    ingest(store, "docs", [_write(tmp_path)])
    search = Retriever(store, "docs").search
    # "desistir" and "sete dias" are only in the caput: the paragraph that answers "do I get
    # my money back?" is found all the same, and the caput, which says them itself, first
    found = [h.citation.path for h in search("desisti em sete dias", k=5)]
    assert found[0] == "Lei 8.078/1990, Art. 49"
    assert "Lei 8.078/1990, Art. 49, § 1º" in found
    # the paragraph says some of the caput's words itself: not counted twice, they do not
    # lift it over the caput that answers "how many?" (red when the whole caput is added)
    found = [h.citation.path for h in search("quantos membros integram o Conselho de Contas")]
    assert found[0] == "Lei 8.078/1990, Art. 51"
    # "publicidade" is only in the section heading the inciso sits under
    found = [h.citation.path for h in search("publicidade", k=5)]
    assert "Lei 8.078/1990, Art. 50, inciso I" in found
    store.close()
