"""The recursive chunker (Chonkie underneath) chunk by chunk: its settings and their checks, the
overlap that begins at a word and never repeats a word split in two, blank space trimmed and
never a chunk of its own, and the document's path and heading on every chunk."""

from __future__ import annotations

import pytest

from colmeia.rag.ingest.chunk_recursive import RecursiveChunker
from colmeia.rag.types import ExtractedDocument, Page

LONG_WORD = "abc Supercalifragilistico de mais"
SENTENCES = "Primeira frase do texto. Segunda frase aqui. Terceira frase do fim."


def _doc(text: str, **metadata: str) -> ExtractedDocument:
    return ExtractedDocument("d1", "t", [Page(1, text)], "h", metadata=metadata)


def _texts(chunker: RecursiveChunker, text: str) -> list[str]:
    chunks = chunker.chunk(_doc(text))
    assert all(text[c.char_start : c.char_end] == c.text for c in chunks)
    return [c.text for c in chunks]


def test_the_defaults_are_1200_characters_no_overlap_and_24_characters_at_least() -> None:
    chunker = RecursiveChunker()
    assert (chunker.chunk_size, chunker.overlap, chunker.tokenizer) == (1200, 0, "character")
    assert chunker.min_characters_per_chunk == 24


def test_a_size_must_be_positive_and_the_overlap_smaller_than_it() -> None:
    with pytest.raises(ValueError, match=r"^chunk_size must be positive$"):
        RecursiveChunker(chunk_size=0)
    assert RecursiveChunker(chunk_size=1).chunk_size == 1
    for overlap in (-1, 10):
        with pytest.raises(ValueError, match=r"^overlap must be in \[0, chunk_size\)$"):
            RecursiveChunker(chunk_size=10, overlap=overlap)
    assert RecursiveChunker(chunk_size=10, overlap=9).overlap == 9


def test_the_overlap_begins_at_the_first_word_inside_it() -> None:
    chunker = RecursiveChunker(30, overlap=12, min_characters_per_chunk=2)
    assert _texts(chunker, SENTENCES) == [
        "Primeira frase do texto.",
        # twelve characters back from "Segunda" fall on "(fras)e do texto.": from "do"
        "do texto. Segunda frase aqui.",
        "frase aqui. Terceira frase do fim.",
    ]
    assert _texts(RecursiveChunker(30, min_characters_per_chunk=2), SENTENCES) == [
        "Primeira frase do texto.",
        "Segunda frase aqui.",
        "Terceira frase do fim.",
    ]


def test_an_overlap_reaching_back_past_the_start_begins_at_the_start() -> None:
    chunker = RecursiveChunker(10, overlap=5, min_characters_per_chunk=2)
    assert _texts(chunker, LONG_WORD) == ["abc", "abc Supercalif", "ragilistic", "o", "de mais"]


def test_an_overlap_inside_the_first_word_or_a_split_word_adds_nothing() -> None:
    # "Supercalifragilistico" is longer than a chunk: the chunker cuts it, and the overlap
    # never repeats part of it nor of the "abc" before it (three back from "S" is "bc ")
    expected = ["abc", "Supercalif", "ragilistic", "o", "de mais"]
    assert (
        _texts(RecursiveChunker(10, overlap=3, min_characters_per_chunk=2), LONG_WORD) == expected
    )
    assert _texts(RecursiveChunker(10, min_characters_per_chunk=2), LONG_WORD) == expected


def test_the_minimum_characters_per_chunk_reach_chonkie() -> None:
    chunker = RecursiveChunker(10, min_characters_per_chunk=24)
    assert _texts(chunker, LONG_WORD) == ["abc Superc", "alifragili", "stico de m", "ais"]


def test_the_word_tokenizer_counts_words_and_keeps_every_character() -> None:
    # Chonkie's offsets drift by a character a piece with this tokenizer: chunks cut at them
    # lost the document's final period and began a character early
    text = (
        "   Primeira frase do texto. Segunda frase aqui.\n\nTerceira frase bem longa do documento."
    )
    assert _texts(RecursiveChunker(5, tokenizer="word"), text) == [
        "Primeira frase",
        "do texto. Segunda frase aqui.",
        "Terceira frase bem longa do",
        "documento.",
    ]
    spaced = "Primeira  frase\tdo texto.   Segunda frase\n aqui.\n\n\n  Terceira frase bem   longa. Fim ."
    chunks = _texts(RecursiveChunker(4, tokenizer="word"), spaced)
    assert " ".join(chunks).split() == spaced.split()
    assert chunks[-1] == "Fim ."


def test_blank_space_is_trimmed_and_never_a_chunk_however_long() -> None:
    chunker = RecursiveChunker(10, min_characters_per_chunk=2)
    # 25 spaces come from Chonkie as three pieces of blank space: all left out, and what
    # follows them is still chunked
    assert _texts(chunker, "abcdefghij" + " " * 25 + "klmnop qrs") == ["abcdefghij", "klmnop qrs"]
    assert _texts(chunker, "abcdefghij" + " " * 25 + "klmnop qrs" + " " * 25) == [
        "abcdefghij",
        "klmnop",
        "qrs",
    ]
    assert _texts(RecursiveChunker(60), "   Uma frase com recuo.  ") == ["Uma frase com recuo."]
    assert RecursiveChunker().chunk(_doc(" \n\n ")) == []


def test_every_chunk_carries_the_documents_path_heading_and_chunker() -> None:
    doc = _doc(SENTENCES, path="Título I > Capítulo II", heading="Das disposições gerais")
    chunks = RecursiveChunker(30, min_characters_per_chunk=2).chunk(doc)
    assert [(c.path, c.heading) for c in chunks] == [
        ("Título I > Capítulo II", "Das disposições gerais")
    ] * 3
    assert [c.chunk_id for c in chunks] == ["d1#0", "d1#1", "d1#2"]
    assert all(c.metadata == {"chunker": "recursive"} for c in chunks)
    bare = RecursiveChunker(30, min_characters_per_chunk=2).chunk(_doc(SENTENCES))
    assert {(c.path, c.heading) for c in bare} == {("", "")}


def test_a_repeated_passage_is_placed_where_it_repeats() -> None:
    text = "O prazo é de dez dias.\n\nO prazo é de dez dias.\n\nO prazo é de dez dias."
    chunks = RecursiveChunker(24, min_characters_per_chunk=2).chunk(_doc(text))
    assert [(c.text, c.char_start) for c in chunks] == [
        ("O prazo é de dez dias.", 0),
        ("O prazo é de dez dias.", 24),
        ("O prazo é de dez dias.", 48),
    ]
