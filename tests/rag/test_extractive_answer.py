"""The answer without a model, and every answer as the API and ``colmeia rag ask --json`` give it.

With no model configured, the answer is the best passages themselves, each cited ``[P1]`` with
its document, article and printed page. ``CitedAnswer.as_dict`` is what a client reads: the
answer, the citations kept and rejected (each with its passage, reason and source), and the
passages numbered as the answer cites them.
"""

from __future__ import annotations

from colmeia.rag.generate import CheckedCitation, CitedAnswer, extractive_answer
from colmeia.rag.retrieve import Citation, Hit


def _hit(n: int, text: str, path: str, page: int) -> Hit:
    citation = Citation("Lei 8.987/1995", page, path, source="leis/lei8987.md")
    return Hit(f"lei8987.md#{n}", "lei8987.md", 1.0 / n, text, citation, "leis", n)


HITS = [
    _hit(1, "A concessão será precedida de licitação.", "Art. 14", 2),
    _hit(2, "Toda concessão pressupõe serviço adequado.", "Art. 6º", 1),
    _hit(3, "A tarifa será fixada pelo preço da proposta.", "Art. 9º", 3),
    _hit(4, "O poder concedente fiscaliza o serviço.", "Art. 29", 5),
]


def test_the_extractive_answer_is_the_three_best_passages_each_cited() -> None:
    result = extractive_answer("Como é feita a concessão?", HITS)
    assert result.answer == (
        "[P1] Lei 8.987/1995, Art. 14 (p. 2): A concessão será precedida de licitação.\n\n"
        "[P2] Lei 8.987/1995, Art. 6º: Toda concessão pressupõe serviço adequado.\n\n"
        "[P3] Lei 8.987/1995, Art. 9º (p. 3): A tarifa será fixada pelo preço da proposta."
    )
    assert result.extractive and result.question == "Como é feita a concessão?"
    assert result.passages == HITS  # every passage found, not only those cited
    assert result.rejected == []


def test_each_extractive_citation_names_its_passage_and_source() -> None:
    result = extractive_answer("Como é feita a concessão?", HITS, top=2)
    assert [c.as_dict() for c in result.citations] == [
        {
            "passage_id": "P1",
            "supported": True,
            "reason": "",
            "quote": "",
            "chunk_id": "lei8987.md#1",
            "doc_id": "lei8987.md",
            "citation": HITS[0].citation.as_dict(),
        },
        {
            "passage_id": "P2",
            "supported": True,
            "reason": "",
            "quote": "",
            "chunk_id": "lei8987.md#2",
            "doc_id": "lei8987.md",
            "citation": HITS[1].citation.as_dict(),
        },
    ]


def test_nothing_found_is_said_in_words() -> None:
    result = extractive_answer("Qual é a multa?", [])
    assert result.answer == "Nenhum trecho encontrado para esta pergunta."
    assert result.citations == [] and result.passages == []


def test_the_answer_as_a_client_reads_it() -> None:
    kept = CheckedCitation(
        "P1", True, "", "precedida de licitação", HITS[0].chunk_id, "lei8987.md", HITS[0].citation
    )
    rejected = CheckedCitation("P7", False, "unknown passage id", "multa de 2%")
    answer = CitedAnswer(
        "Como é feita a concessão?",
        "Por licitação [P1].",
        [kept],
        [rejected],
        HITS[:2],
        model="qwen",
        withheld="",
    )
    assert answer.as_dict() == {
        "question": "Como é feita a concessão?",
        "answer": "Por licitação [P1].",
        "extractive": False,
        "withheld": "",
        "model": "qwen",
        "citations": [
            {
                "passage_id": "P1",
                "supported": True,
                "reason": "",
                "quote": "precedida de licitação",
                "chunk_id": "lei8987.md#1",
                "doc_id": "lei8987.md",
                "citation": HITS[0].citation.as_dict(),
            }
        ],
        "rejected": [
            {
                "passage_id": "P7",
                "supported": False,
                "reason": "unknown passage id",
                "quote": "multa de 2%",
                "chunk_id": "",
                "doc_id": "",
                "citation": None,
            }
        ],
        "passages": [{"id": "P1", **HITS[0].as_dict()}, {"id": "P2", **HITS[1].as_dict()}],
    }
    assert extractive_answer("q", HITS).as_dict()["extractive"] is True
