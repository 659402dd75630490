"""The shorthand people type in a chat, read as the words it stands for.

"qnto tempo um documento do governo pode ficar em segredo", "qnd sai a decisão", "qm é o
relator": written fast, Portuguese drops the vowels of its commonest words. The turn classifier
learnt a few such forms from its corpus ("vc", "q", "pq", "tb", :data:`turngen.trainlex.
ABBREVIATIONS`), never these; to its character n-grams "qnto" is no "quanto", so a question of
how long reads as one about the court's own documents, and the law's search misses that a
deadline is asked. Each form here stands for one word only, whatever the sentence — forms that
name something else too are left out ("mt", Mato Grosso; "nd", "adm", "doc").
"""

from __future__ import annotations

import re

__all__ = ["SHORTHAND", "expand_shorthand"]

# form typed → the word, without accents (what the readers fold text to anyway)
SHORTHAND: dict[str, str] = {
    "qnto": "quanto",
    "qnta": "quanta",
    "qntos": "quantos",
    "qntas": "quantas",
    "qnt": "quanto",
    "qto": "quanto",
    "qtos": "quantos",
    "qtas": "quantas",
    "qnd": "quando",
    "qndo": "quando",
    "qdo": "quando",
    "qm": "quem",
    "ql": "qual",
    "qls": "quais",
    "qq": "qualquer",
    "qlq": "qualquer",
    "qlqr": "qualquer",
    "td": "tudo",
    "tds": "todos",
    "mto": "muito",
    "mta": "muita",
    "mtos": "muitos",
    "mtas": "muitas",
    "dps": "depois",
    "agr": "agora",
    "cmg": "comigo",
    "ngm": "ninguem",
    "kd": "cade",
    "vdd": "verdade",
    "xq": "porque",
    "hrs": "horas",
    "msg": "mensagem",
    "msgs": "mensagens",
    "infos": "informacoes",
    "dnv": "de novo",
}

_FORM = re.compile(r"\b(" + "|".join(sorted(SHORTHAND, key=len, reverse=True)) + r")\b", re.I)


def expand_shorthand(text: str) -> str:
    """``text`` with each shorthand form written out ("qnto tempo…" → "quanto tempo…"); the
    rest as typed."""
    return _FORM.sub(lambda m: SHORTHAND[m.group(1).lower()], text)
