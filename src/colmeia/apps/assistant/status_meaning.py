"""What a case's situation means, said plainly when the person asks ("o que é diligência?",
"e o que quer dizer isso?", "aguardando parecer do mpc significa o que?").

A registry's situations are the court's words; asked in a thread about a case, what they mean
is part of that case's answer — not a law question (no article of the collection defines them).
Only the common situations of a court of accounts are explained; another registry's own
situation gets no explanation rather than a guessed one."""

from __future__ import annotations

import re

from colmeia.apps.assistant.case_index import fold

__all__ = ["MEANINGS", "status_meaning"]

#: a situation (folded) → what it means, and the words a person names it by
MEANINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "em instrucao": (
        "a área técnica do tribunal está reunindo e analisando as informações e os "
        "documentos do processo; ainda não houve julgamento",
        ("instrucao",),
    ),
    "aguardando defesa": (
        "os responsáveis foram chamados (citados ou notificados) e o prazo para apresentarem "
        "defesa ou justificativas está correndo; depois dele o processo segue para análise",
        ("aguardando defesa", "aguardando a defesa"),
    ),
    "em diligencia": (
        "o tribunal pediu informações ou documentos a alguém (um órgão ou uma das partes) e "
        "aguarda a resposta para continuar a análise",
        ("diligencia",),
    ),
    "aguardando parecer do mpc": (
        "o processo está com o Ministério Público de Contas, que dá um parecer (sua opinião "
        "técnica) antes do julgamento",
        ("parecer do mpc", "parecer do ministerio publico", "aguardando parecer"),
    ),
    "julgado": (
        "o tribunal já decidiu o processo; a decisão está nas movimentações e nos documentos, "
        "e ainda pode caber recurso no prazo",
        ("julgado",),
    ),
    "arquivado": (
        "o processo foi encerrado e guardado; não tem mais andamento, a não ser que seja reaberto",
        ("arquivado",),
    ),
}

# each situation as the court writes it
_NAMES = {
    "em instrucao": "Em instrução",
    "aguardando defesa": "Aguardando defesa",
    "em diligencia": "Em diligência",
    "aguardando parecer do mpc": "Aguardando parecer do MPC",
    "julgado": "Julgado",
    "arquivado": "Arquivado",
}

# "o que é …", "o que significa …", "o que quer dizer isso", "… significa o quê?"
_ASKS = re.compile(
    r"\b(?:o\s+)?(?:que|q)\s+(?:e|eh|seria|significa|quer\s+dizer)\b|\bsignifica\s+o\s+q(?:ue)?\b"
)
# the situation pointed at, not named: "isso", "esse status", "essa fase"
_POINTED = re.compile(r"\b(?:isso|isto|esse\s+status|essa\s+situacao|essa\s+fase)\b")


def status_meaning(text: str, status: str) -> str | None:
    """What a situation means, when ``text`` asks it: the situation it names by one of its
    words ("o que é diligência?", whatever the case's own), or ``status`` — the case's — when
    it points at it ("o que quer dizer isso?"); else ``None``."""
    folded = fold(text)
    if not _ASKS.search(folded):
        return None
    for key, (meaning, words) in MEANINGS.items():
        if any(re.search(rf"\b{w}\b", folded) for w in words):
            return f"O que quer dizer “{_NAMES[key]}”: {meaning}."
    known = MEANINGS.get(" ".join(fold(status).split()))
    if known is None or not _POINTED.search(folded):
        return None
    return f"O que quer dizer “{status}”: {known[0]}."
