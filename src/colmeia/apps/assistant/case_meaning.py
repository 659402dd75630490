"""The described case nearest in meaning, when the registry's words do not find it.

"o processo dos carros alugados pra levar os alunos lá em Iguatu" describes a case whose
subject reads "contratação de transporte escolar por locação de veículos": one word in six is
the registry's ("Iguatu"), too few for the word ranking (:mod:`.case_index`) to name a case.
The offline e5 vectors place the description beside that subject all the same. Here the cases
holding a word of the description (the candidates) and a few others (a baseline: what an
unrelated case scores against this description) are compared with the description by cosine
similarity; the nearest is the described case only when it is a candidate and leads every
other by :data:`MARGIN` — meaning confirms what a word already pointed at, it never picks a
case no word of the description names.

Vectors are computed for the compared cases only (a few dozen at most), through the
embedder's cache, so a large registry costs nothing until a description needs them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from colmeia.rag.index.embedders import Embedder, normalize

__all__ = ["BASELINE", "MARGIN", "MAX_CANDIDATES", "nearest_in_meaning"]

#: how far (cosine) the nearest case must lead every other compared: set on the development
#: sets, where the described cases led the next by 0.05 and unrelated descriptions' nearest
#: cases by under 0.02
MARGIN = 0.03
#: cases compared besides the candidates, so that one candidate is measured against others
BASELINE = 8
#: at most this many candidates are compared (a description matching more says too little)
MAX_CANDIDATES = 30


def nearest_in_meaning(
    embedder: Embedder,
    descriptions: Mapping[str, str],
    text: str,
    candidates: Sequence[str],
) -> str | None:
    """The candidate case whose description is clearly nearest ``text`` in meaning, or
    ``None`` (too many candidates, none, or no clear lead)."""
    pool = [c for c in dict.fromkeys(candidates) if c in descriptions]
    if len(pool) > MAX_CANDIDATES:
        return None
    chosen = set(pool)
    keys = pool + [k for k in descriptions if k not in chosen][:BASELINE]
    if len(keys) < 2:
        return None
    as_query = getattr(embedder, "embed_query", None)  # e5's query form, when it has one
    asked = as_query([text]) if callable(as_query) else embedder.embed([text])
    sims = normalize(embedder.embed([descriptions[k] for k in keys])) @ normalize(asked)[0]
    best, second = (int(i) for i in np.argsort(-sims)[:2])
    if keys[best] not in chosen or sims[best] - sims[second] < MARGIN:
        return None
    return keys[best]
