"""Write the sample thesis PDFs of this folder from the shipped CAPES catalogue.

Each PDF is a *generated* document, not the work's full text: a cover that says so, the RESUMO
page, and chapters (INTRODUÇÃO, METODOLOGIA, RESULTADOS, CONSIDERAÇÕES FINAIS) made of the
sentences of the work's published abstract, sorted by what they say (objectives, method,
results), with printed page numbers from the introduction on, as in an ABNT thesis. Nothing is
invented: every sentence of a chapter is a sentence of the abstract (public domain, see
../LICENSE). They let the demo and the tests read "full text" from PDFs with pages to cite.

    .venv/bin/python data/theses/pdfs/make_pdfs.py      # rewrites the PDFs beside this file
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATALOGUE = HERE.parent / "capes_resumos.csv"
#: Rows of capes_resumos.csv (its first, unnamed column): four works on gender and sexuality in
#: teacher education and practice, and one far from it (food choice) for the off-topic case.
ROWS = ("95", "105", "50", "87", "122")
NOTE = (
    "Documento de exemplo gerado pelo colmeia a partir do resumo publicado no Catálogo de Teses "
    "e Dissertações da CAPES (domínio público). Não é o texto integral do trabalho: os capítulos "
    "reúnem as frases do resumo conforme o que dizem."
)
_SENTENCE_RE = re.compile(r"(?<=[.!?])\s+(?=[A-ZÀ-Ý])")
_OBJECTIVE = re.compile(r"objetiv|pretend|prop[õo]|buscou|busca |investig|teve como|tem como", re.I)
_METHOD = re.compile(
    r"metodolog|entrevist|question[áa]rio|qualitativ|quantitativ|estudo de caso|grupo focal|"
    r"an[áa]lise (?:documental|de conte[úu]do|do discurso|tem[áa]tica)|pesquisa (?:bibliogr|de "
    r"campo|documental|explorat|descritiv|narrativ)|participa|sujeitos|amostra|coleta|dados|"
    r"referencial|aporte|fundament|ancora|base[ia]",
    re.I,
)
_RESULT = re.compile(
    r"resultado|conclu|evidenci|indica|revel|aponta|constat|demonstr|percebe|verific|mostr|"
    r"identific|observ|nota-se|considera",
    re.I,
)


def _latin1(text: str) -> str:
    text = text.replace("―", '"').replace("‖", '"').replace("–", "-").replace("—", "-")
    text = text.replace("“", '"').replace("”", '"').replace("‘", "'").replace("’", "'")
    return text.encode("latin-1", "replace").decode("latin-1")


def chapters(abstract: str) -> dict[str, list[str]]:
    """The abstract's sentences sorted into chapters by what they say (in their order)."""
    sentences = [s.strip() for s in _SENTENCE_RE.split(" ".join(abstract.split())) if s.strip()]
    parts: dict[str, list[str]] = {
        "INTRODUÇÃO": [],
        "METODOLOGIA": [],
        "RESULTADOS": [],
        "CONSIDERAÇÕES FINAIS": [],
    }
    names = list(parts)
    current = 0  # chapters follow the abstract's order: a sentence never moves back
    for i, s in enumerate(sentences):
        if i > 0 and current < 2 and _METHOD.search(s) and not _OBJECTIVE.search(s):
            current = 1
        elif i > 0 and _RESULT.search(s) and i >= len(sentences) // 2:
            current = 2
        parts[names[current]].append(s)
    closing = parts["RESULTADOS"] or parts["METODOLOGIA"]
    if len(closing) > 1:
        parts["CONSIDERAÇÕES FINAIS"].append(closing.pop())
    return parts


def file_name(title: str) -> str:
    """The PDF's name: the title's first words, so `review import --pdfs` matches it."""
    folded = re.sub(r"[^\w]+", "_", title.strip(), flags=re.UNICODE).strip("_")
    return folded[:80] + ".pdf"


def write(row: dict[str, str], target: Path) -> int:
    from fpdf import FPDF

    class Thesis(FPDF):
        def header(self) -> None:
            if self.page_no() > 2:  # numbers printed from the introduction on (ABNT)
                self.set_font("Helvetica", size=10)
                self.cell(0, 6, str(self.page_no() + 8), align="R", new_x="LMARGIN", new_y="NEXT")
                self.ln(4)

    pdf = Thesis(format="A4")
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))  # reproducible bytes
    pdf.set_margins(30, 25, 20)
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 7, _latin1(row["IES"].strip().upper()), align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(8)
    pdf.cell(0, 7, _latin1(row["Autor"].strip()), align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(30)
    pdf.set_font("Helvetica", "B", 14)
    pdf.multi_cell(0, 8, _latin1(row["Titulo"].strip()), align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(20)
    pdf.set_font("Helvetica", size=11)
    kind = "Tese (Doutorado" if row["Tipo"].startswith("Tese") else "Dissertação (Mestrado"
    degree = f"{kind} em {row['Programa'].strip()})"
    pdf.multi_cell(0, 6, _latin1(degree), align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.cell(0, 7, row["Defesa"][-4:], align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(30)
    pdf.set_font("Helvetica", "I", 9)
    pdf.multi_cell(0, 5, _latin1(NOTE), align="J", new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 8, "RESUMO", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, _latin1(" ".join(row["Resumo"].split())), align="J", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    keywords = row["Keywords"].strip("[]").replace("'", "")
    pdf.multi_cell(0, 6, _latin1(f"Palavras-chave: {keywords}."), new_x="LMARGIN", new_y="NEXT")
    for name, sentences in chapters(row["Resumo"]).items():
        if not sentences:
            continue
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 12)
        pdf.cell(0, 10, _latin1(name), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        for s in sentences:
            pdf.set_x(pdf.l_margin + 12)  # first-line indent, as in a thesis
            pdf.multi_cell(0, 6, _latin1(s), align="J", new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 10, _latin1("REFERÊNCIAS"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    ref = f"{row['Autor'].strip()}. {row['Titulo'].strip()}. {row['IES'].strip()}, {row['Defesa'][-4:]}."
    pdf.multi_cell(0, 5, _latin1(ref), new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(target))
    return int(pdf.page_no())


def main(folder: Path = HERE) -> list[Path]:
    with CATALOGUE.open(encoding="utf-8", newline="") as fh:
        rows = {r[""]: r for r in csv.DictReader(fh)}
    written = []
    for key in ROWS:
        target = folder / file_name(rows[key]["Titulo"])
        pages = write(rows[key], target)
        written.append(target)
        print(f"{target.name}: {pages} pages, {target.stat().st_size} bytes")
    return written


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
