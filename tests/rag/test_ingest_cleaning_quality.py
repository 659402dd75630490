"""PDF cleaning measured against reference texts: the gazette and the dissertation.

Similarity is token-sequence F1 (difflib alignment of lower-cased word tokens; precision is
taken over the aligned span of the candidate), and, for line joining, paragraph recall: the share
of reference paragraphs (≥ 20 words) that come out as one cleaned paragraph (token F1 ≥ 0.9).
Raw extraction is measured the same way so the value of cleaning is visible.
"""

from __future__ import annotations

import collections
import difflib
import re
import shutil
from pathlib import Path

import pytest

from colmeia.rag.ingest import clean_document, extract
from shared_data import DATA_DIR, external, needs_external

DATA = DATA_DIR / "pdfs"
_WORD = re.compile(r"\w+")

# The dissertation is CC BY-NC-ND: not shipped, found through COLMEIA_DATA_DIR when present.
needs_dissertation = needs_external("pdfs", "academic", "dissertacao.pdf")


def academic(name: str) -> Path:
    path = external("pdfs", "academic", name)
    assert path is not None
    return path


def tokens(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def aligned_f1(gold: list[str], cand: list[str]) -> float:
    """F1 of the tokens difflib aligns; precision over the candidate span that aligned."""
    blocks = [
        b
        for b in difflib.SequenceMatcher(None, gold, cand, autojunk=False).get_matching_blocks()
        if b.size
    ]
    if not blocks:
        return 0.0
    matched = sum(b.size for b in blocks)
    span = blocks[-1].b + blocks[-1].size - blocks[0].b
    precision, recall = matched / span, matched / len(gold)
    return 2 * precision * recall / (precision + recall)


def paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def paragraph_recall(gold: list[str], cand: list[str]) -> float:
    cand_counts = [collections.Counter(tokens(c)) for c in cand]
    hits = total = 0
    for g in gold:
        gt = tokens(g)
        if len(gt) < 20:
            continue
        total += 1
        gc = collections.Counter(gt)
        best = 0.0
        for cc in cand_counts:
            overlap = sum((gc & cc).values())
            if overlap:
                p, r = overlap / sum(cc.values()), overlap / len(gt)
                best = max(best, 2 * p * r / (p + r))
        hits += best >= 0.9
    return hits / total


def _balanced_drop(tex: str, command: str, args: int = 1) -> str:
    out, i = [], 0
    pattern = re.compile(r"\\" + command + r"\s*\{")
    while m := pattern.search(tex, i):
        out.append(tex[i : m.start()] + "\x00")
        j = m.start()
        for _ in range(args):
            j = tex.index("{", j)
            depth = 0
            while True:
                depth += {"{": 1, "}": -1}.get(tex[j], 0)
                j += 1
                if depth == 0:
                    break
        i = j
    out.append(tex[i:])
    return "".join(out)


def strip_latex(tex: str) -> str:
    """Plain text of a LaTeX fragment; lines holding only markup vanish (no false breaks)."""
    tex = re.sub(r"(?<!\\)%.*", "\x00", tex)
    for command, args in (
        ("deleted", 1),
        ("footnote", 1),
        ("nomenclature", 2),
        ("cite", 1),
        ("label", 1),
        ("ref", 1),
    ):
        tex = _balanced_drop(tex, command, args)
    tex = re.sub(r"\\replaced\{([^{}]*)\}\{[^{}]*\}", r"\1", tex)
    tex = re.sub(r"\\(?:textit|textbf|emph|url|added|texttt)\s*\{([^{}]*)\}", r"\1", tex)
    tex = re.sub(r"\\(?:chapter|section|subsection)\*?\{([^{}]*)\}", r"\n\n\1\n\n", tex)
    tex = re.sub(r"\\(?:begin|end)\{[^}]*\}(?:\[[^\]]*\])?", "\n\n", tex)
    tex = re.sub(r"\\item\s*(?:\[[^\]]*\])?", "\n\n", tex)
    tex = tex.replace("\\%", "%").replace("~", " ")
    tex = re.sub(r"\\[a-zA-Z]+\*?", "", tex)
    tex = tex.replace("{", "").replace("}", "")
    lines = [
        line
        for line in tex.split("\n")
        if not ("\x00" in line and not line.replace("\x00", "").strip())
    ]
    return "\n".join(lines).replace("\x00", "")


@pytest.fixture(scope="module")
def dissertation(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, object]:
    target = tmp_path_factory.mktemp("academic") / "dissertacao.pdf"
    shutil.copy(academic("dissertacao.pdf"), target)
    raw = extract(target)
    return raw, clean_document(raw)


def _pages(doc: object, first: int, last: int) -> str:
    return "\n\n".join(p.text for p in doc.pages if first <= p.number <= last)  # type: ignore[attr-defined]


@needs_dissertation
def test_dissertation_introduction_is_recovered_as_paragraphs(
    dissertation, record_property
) -> None:
    raw, cleaned = dissertation
    gold = strip_latex(academic("introducao.tex").read_text(encoding="utf-8"))
    raw_text, clean_text = _pages(raw, 17, 22), _pages(cleaned, 17, 22)

    raw_f1 = aligned_f1(tokens(gold), tokens(raw_text))
    clean_f1 = aligned_f1(tokens(gold), tokens(clean_text))
    raw_par = paragraph_recall(paragraphs(gold), paragraphs(raw_text))
    clean_par = paragraph_recall(paragraphs(gold), paragraphs(clean_text))
    print(
        f"introdução: token F1 raw {raw_f1:.3f} → clean {clean_f1:.3f}; paragraph recall raw {raw_par:.3f} → clean {clean_par:.3f}"
    )
    record_property("intro_token_f1", clean_f1)
    record_property("intro_paragraph_recall", clean_par)

    assert clean_f1 >= 0.93
    assert clean_f1 > raw_f1
    # In-sample floor: 1.0 measured (0.867 before first-line indents were read: a paragraph
    # ending on a full justified line ran into the next).
    assert clean_par >= 0.93
    assert raw_par <= 0.1  # raw extraction keeps the PDF's line breaks: no paragraphs


@needs_dissertation
def test_dissertation_abstract_pages(dissertation) -> None:
    raw, cleaned = dissertation
    gold = strip_latex(academic("resumo.tex").read_text(encoding="utf-8"))
    raw_f1 = aligned_f1(tokens(gold), tokens(_pages(raw, 6, 7)))
    clean_f1 = aligned_f1(tokens(gold), tokens(_pages(cleaned, 6, 7)))
    clean_par = paragraph_recall(paragraphs(gold), paragraphs(_pages(cleaned, 6, 7)))
    print(
        f"resumo/abstract: token F1 raw {raw_f1:.3f} → clean {clean_f1:.3f}; paragraph recall {clean_par:.3f}"
    )
    assert clean_f1 >= 0.93
    assert clean_par >= 0.7


@needs_dissertation
def test_dissertation_page_numbers_are_removed_but_pages_kept(dissertation) -> None:
    raw, cleaned = dissertation
    assert raw.pages[16].text.rstrip().endswith("\n1")
    page17 = next(p for p in cleaned.pages if p.number == 17)
    assert not page17.text.rstrip().endswith("\n1")
    uncut = clean_document(raw, cut_front_matter=False, cut_references=False)
    # Every page with text is still there, or its only paragraph finished the one before
    # (joined back, and cited as that next page through ``carry_page``).
    kept = {p.number for p in uncut.pages} | {p.carry_page for p in uncut.pages if p.carry}
    assert kept >= {p.number for p in raw.pages if p.text.strip()}


@needs_dissertation
def test_front_matter_and_references_are_cut_by_default_for_a_thesis(dissertation) -> None:
    raw, default = dissertation
    cut = clean_document(raw, cut_front_matter=True, cut_references=True)
    assert default.text == cut.text
    numbers = [p.number for p in cut.pages]
    # Resumo (6) and abstract (7) stay; cover, approval, acknowledgements and lists go.
    assert numbers[:3] == [6, 7, 17]
    text = cut.text
    assert "Agradecimentos" not in text
    assert "SUMÁRIO" not in text
    assert "LISTA DE FIGURAS" not in text
    assert "REFERÊNCIAS BIBLIOGRÁFICAS" not in text
    assert "APÊNDICE" in text or "SCREENSHOTS" in text.upper()
    uncut = clean_document(raw, cut_front_matter=False, cut_references=False).text
    assert len(text) < len(uncut)
    assert "REFERÊNCIAS BIBLIOGRÁFICAS" in uncut


def gazette_reference_body() -> str:
    """The reference text without the masthead lines a reader does not want in passages."""
    masthead = re.compile(
        r"^(Segunda-feira, 26 de Outubro de 2020 - Edição n° 136|Diário Oficial do Município de "
        r"Pratânia/SP|Edição 136 - Página.*|Rua Francisco Vieira da Maia, 10 .*)\s*$"
    )
    text = (DATA / "gazette" / "pratania-2020-10-26.txt").read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not masthead.match(line.strip()))


def test_gazette_headers_removed_and_text_kept(tmp_path, record_property) -> None:
    target = tmp_path / "gazette.pdf"
    shutil.copy(DATA / "gazette" / "pratania-2020-10-26.pdf", target)
    raw = extract(target)
    cleaned = clean_document(raw)
    gold = tokens(gazette_reference_body())

    raw_f1 = aligned_f1(gold, tokens(raw.text))
    clean_f1 = aligned_f1(gold, tokens(cleaned.text))
    print(f"gazette: token F1 raw {raw_f1:.3f} → clean {clean_f1:.3f}")
    record_property("gazette_token_f1", clean_f1)
    assert clean_f1 >= 0.80
    assert clean_f1 >= raw_f1 + 0.03

    assert raw.text.count("Diário Oficial do Município de Pratânia/SP") >= 8
    assert cleaned.text.count("Diário Oficial do Município de Pratânia/SP") == 0
    assert "Edição 136 - Página" not in cleaned.text
    # Content survives, with the lines of a paragraph joined.
    assert (
        "Considerando que o dia 28 de outubro é data consagrada às comemorações do "
        '"Dia do Servidor Público", conforme disposto no art. 236 da Lei Federal nº 8.112/90;'
    ) in cleaned.text
