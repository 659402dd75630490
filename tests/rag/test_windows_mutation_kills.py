"""How a window's vector is pooled from its pieces, number by number: each distinct piece is
embedded once (across windows and groups), a window's vector is the word-weighted mean of its
pieces' vectors, normalised, and a window that overlaps nothing gets the embedder's own vector."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from colmeia.rag.index.windows import Window, embed_windows


class TableEmbedder:
    """An embedder that looks each text up in a table, and records every batch it was given."""

    def __init__(self, table: dict[str, list[float]], extra_rows: int = 0) -> None:
        self.table = table
        self.extra_rows = extra_rows
        self.batches: list[list[str]] = []

    @property
    def name(self) -> str:
        """The recorded identity."""
        return "table"

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The table's vectors of ``texts`` (plus ``extra_rows`` zero rows, to misbehave)."""
        self.batches.append(list(texts))
        rows = [self.table[t] for t in texts] + [[0.0, 0.0, 0.0]] * self.extra_rows
        return np.asarray(rows, np.float32)


A = "um dois três "  # three words
B = "quatro "  # one word
C = "cinco seis"  # two words
TEXT = A + B + C
E = {A: [1.0, 0.0, 0.0], B: [0.0, 1.0, 0.0], C: [0.0, 0.0, 1.0]}


def window(start: int, end: int, group: str = "d", source: str = TEXT) -> Window:
    """The window ``source[start:end]`` of the text named ``group``."""
    return Window(group, start, end, source[start:end])


AB = window(0, len(A + B))
BC = window(len(A), len(TEXT))


def unit(v: list[float]) -> npt.NDArray[np.float32]:
    """``v`` scaled to length 1."""
    arr = np.asarray(v, np.float32)
    return arr / np.linalg.norm(arr)


def test_no_windows_give_an_empty_matrix() -> None:
    """No windows: a 0×0 matrix, and the embedder is not called."""
    emb = TableEmbedder(E)
    out = embed_windows(emb, [])
    assert out.shape == (0, 0) and out.dtype == np.float32
    assert emb.batches == []


def test_overlapping_windows_are_cut_into_pieces_embedded_once() -> None:
    """'A B' and 'B C' are cut at each other's boundaries: A, B and C, each embedded once, in
    the order they are met."""
    emb = TableEmbedder(E)
    embed_windows(emb, [AB, BC])
    assert emb.batches == [[A, B, C]]


def test_a_window_vector_is_the_word_weighted_mean_of_its_pieces() -> None:
    """'A B' weighs A's three words against B's one; 'B C' weighs B's one against C's two."""
    out = embed_windows(TableEmbedder(E), [AB, BC])
    np.testing.assert_allclose(out[0], unit([3.0, 1.0, 0.0]), rtol=1e-6)
    np.testing.assert_allclose(out[1], unit([0.0, 1.0, 2.0]), rtol=1e-6)


def test_a_window_that_overlaps_nothing_gets_the_embedders_vector() -> None:
    """A window alone is one piece: its vector is the embedder's, scaled to length 1."""
    emb = TableEmbedder({TEXT: [3.0, 4.0, 0.0]})
    out = embed_windows(emb, [window(0, len(TEXT))])
    assert emb.batches == [[TEXT]]
    np.testing.assert_allclose(out, [[0.6, 0.8, 0.0]], rtol=1e-6)
    assert out.dtype == np.float32


def test_windows_of_other_groups_do_not_cut_each_other() -> None:
    """Boundaries cut only windows of the same text: the same spans in two groups stay whole."""
    emb = TableEmbedder({TEXT[:10]: [1.0, 0.0, 0.0], TEXT[3:14]: [0.0, 1.0, 0.0]})
    out = embed_windows(emb, [window(0, 10, "x"), window(3, 14, "y")])
    assert emb.batches == [[TEXT[:10], TEXT[3:14]]]
    np.testing.assert_allclose(out, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def test_the_same_piece_text_in_two_texts_is_embedded_once() -> None:
    """Equal pieces of two different texts share one embedding."""
    emb = TableEmbedder(E)
    out = embed_windows(emb, [window(0, len(A), "x"), window(0, len(A), "y")])
    assert emb.batches == [[A]]
    np.testing.assert_allclose(out, [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])


def test_blank_pieces_are_left_out_of_the_mean() -> None:
    """A piece of only spaces between two windows' boundaries adds no vector and no weight."""
    source = "alfa   beta"
    table = {"alfa": [1.0, 0.0, 0.0], "beta": [0.0, 1.0, 0.0], "alfa   beta": [9.0, 9.0, 9.0]}
    emb = TableEmbedder(table)
    whole = window(0, len(source), source=source)
    out = embed_windows(emb, [whole, window(0, 4, source=source), window(7, 11, source=source)])
    assert emb.batches == [["alfa", "beta"]]
    np.testing.assert_allclose(out[0], unit([1.0, 1.0, 0.0]), rtol=1e-6)


def test_a_blank_window_is_embedded_whole() -> None:
    """A window with no words at all is still embedded (as it is), never dropped."""
    emb = TableEmbedder({"   ": [0.0, 0.0, 2.0]})
    out = embed_windows(emb, [window(0, 3, source="   ")])
    assert emb.batches == [["   "]]
    np.testing.assert_allclose(out, [[0.0, 0.0, 1.0]])


def test_an_embedder_returning_the_wrong_number_of_vectors_is_refused() -> None:
    """An embedder that answers more rows than texts is an error that says both numbers."""
    with pytest.raises(ValueError, match=r"^the embedder returned 4 vectors for 3 texts$"):
        embed_windows(TableEmbedder(E, extra_rows=1), [AB, BC])
