"""Context words of a legal dispositivo for the lexical index (document-side expansion).

A paragraph or inciso of a law rarely repeats what its article is about: "§ 1º O prazo
mencionado poderá ser prorrogado" never says *recurso*; an inciso of the LGPD's Art. 18 lists
one right without the word *titular*. A question in lay words names the subject, so the
dispositivo that answers it was not found by its words at all. Each dispositivo gets the
words of what encloses it — its article's caput, the section heading above that caput, and the
norm's ementa —, only those its own text lacks, once each. They are a field of their own in the
lexical index (``Retriever(context_weight=…)``), scored below the passage's own words so that
the dispositivo's own text still decides between siblings.

Only documents that carry a legal citation path (``Lei …, Art. N, …``, set by the LexML reader
and the legal chunker) get context; other collections are indexed as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from colmeia.store.base import StoredChunk

__all__ = ["CONTEXT_VERSION", "article_path", "context_terms"]

# Bumped when what the context adds changes: the saved lexical indexes are keyed on it.
CONTEXT_VERSION = 1

_ARTICLE_RE = re.compile(r"^(.+?, Art\. [^,]+)")
_WORD_RE = re.compile(r"\w+", re.UNICODE)


def article_path(path: str) -> str:
    """The article a citation path belongs to: ``Lei 9.784/1999, Art. 59, § 1º`` → ``Lei
    9.784/1999, Art. 59``; "" when the path names no article."""
    match = _ARTICLE_RE.match(path.strip())
    return match.group(1).strip() if match else ""


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text)}


def _ementa(metadata: Mapping[str, Any]) -> str:
    context = str(metadata.get("context") or "")
    return context.split(" | ")[0].strip()


def _own_path(chunk: StoredChunk, metadata: Mapping[str, Any]) -> str:
    return str(metadata.get("path") or chunk.path)


def context_terms(
    chunks: Sequence[StoredChunk], documents: Mapping[str, Mapping[str, Any]]
) -> list[str]:
    """For each chunk, the context words to index beside its own text ("" for none).

    ``documents`` maps a doc id to its metadata (``path``, ``heading``, ``context`` as the
    LexML reader stores them)."""
    captions: dict[str, tuple[str, str]] = {}
    for chunk in chunks:
        meta = documents.get(chunk.doc_id, {})
        path = _own_path(chunk, meta)
        art = article_path(path)
        if art and path.strip() == art and art not in captions:
            # The caput: its text and the section heading it sits under.
            captions[art] = (chunk.text, str(meta.get("heading") or chunk.heading))
    out: list[str] = []
    for chunk in chunks:
        meta = documents.get(chunk.doc_id, {})
        path = _own_path(chunk, meta)
        art = article_path(path)
        if not art:
            out.append("")
            continue
        parts = [_ementa(meta)]
        caput = captions.get(art)
        if caput is not None and path.strip() != art:
            parts.extend(caput)
        elif caput is not None:
            parts.append(caput[1])
        own = _words(" ".join((chunk.title, chunk.path, chunk.heading, chunk.text)))
        extra: list[str] = []
        for word in _WORD_RE.findall(" ".join(parts)):
            low = word.lower()
            if low not in own and not low.isdigit():
                own.add(low)
                extra.append(word)
        out.append(" ".join(extra))
    return out
