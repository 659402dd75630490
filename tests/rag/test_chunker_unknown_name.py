"""A mistyped ``--chunker`` (or ``COLMEIA_CHUNKER``) says which names there are, so the person
can pick one without reading the docs; names are read without case or surrounding spaces."""

from __future__ import annotations

import pytest

from colmeia.errors import ConfigurationError
from colmeia.rag.ingest.chunkers import chunker_for


def test_an_unknown_chunker_lists_the_names_to_choose_from() -> None:
    with pytest.raises(ConfigurationError) as raised:
        chunker_for("paragraph")
    assert str(raised.value) == (
        "unknown chunker 'paragraph'; choose one of: auto, paragraphs, recursive, legal"
    )


def test_a_known_name_is_read_without_case_or_spaces() -> None:
    assert chunker_for("  Legal ").name == "legal"
