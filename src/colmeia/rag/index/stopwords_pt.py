"""Portuguese stopwords, as bm25s ships them (``bm25s.stopwords.STOPWORDS_PORTUGUESE``,
MIT License, Copyright (c) 2024 Xing Han Lu).

A copy, so that a search does not import the bm25s package (whose ``__init__`` loads tqdm,
its tokenizer and its retrieval code) just for this list; tests/rag/test_lexical_stopwords.py
checks that it still equals bm25s's list.
"""

from __future__ import annotations

__all__ = ["STOPWORDS_PORTUGUESE"]

_WORDS = """
a ao aos aquela aquelas aquele aqueles aquilo as até com como da das de dela delas dele deles
depois do dos e ela elas ele eles em entre era eram essa essas esse esses esta estamos estar
estas estava estavam este esteja estejam estejamos estes esteve estive estivemos estiver
estivera estiveram estiverem estivermos estivesse estivessem estivéramos estivéssemos estou
está estávamos estão eu foi fomos for fora foram forem formos fosse fossem fui fôramos fôssemos
haja hajam hajamos havemos haver hei houve houvemos houver houvera houveram houverei houverem
houveremos houveria houveriam houvermos houverá houverão houveríamos houvesse houvessem
houvéramos houvéssemos há hão isso isto já lhe lhes mais mas me mesmo meu meus minha minhas
muito na nas nem no nos nossa nossas nosso nossos num numa não nós o os ou para pela pelas pelo
pelos por qual quando que quem se seja sejam sejamos sem ser serei seremos seria seriam será
serão seríamos seu seus somos sou sua suas são só também te tem temos tenha tenham tenhamos
tenho terei teremos teria teriam terá terão teríamos teu teus teve tinha tinham tive tivemos
tiver tivera tiveram tiverem tivermos tivesse tivessem tivéramos tivéssemos tu tua tuas tém
tínhamos um uma você vocês vos à às é éramos
"""

STOPWORDS_PORTUGUESE: tuple[str, ...] = tuple(_WORDS.split())
