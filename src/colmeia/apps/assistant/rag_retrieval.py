"""The RAG agent's retrieval steps: the candidates of a question (hybrid search, the
norm and article it names, vigência and scope clauses, definitions) and a rewrite of its query
by rules (:mod:`colmeia.apps.assistant.rag_agent` wires them)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from colmeia.apps.assistant.definitions import DefinitionIndex
from colmeia.apps.assistant.legal import law_key, parse_legal_path
from colmeia.apps.assistant.named_article import ArticleIndex
from colmeia.apps.assistant.rag_passages import _fuse, _hit, neighbour_terms
from colmeia.apps.assistant.rag_query import _fold, _names_part, _rule_rewrite
from colmeia.apps.assistant.rag_state import RagConfig, RagState
from colmeia.apps.assistant.scope import named_norms
from colmeia.errors import QueryError
from colmeia.rag.retrieve import Filters, Hit, Retriever
from colmeia.store.base import Store

# How much deeper than the usual candidates the search goes for a norm the question names when
# the candidates hold few of its passages (k × this many ranked)
_NAMED_NORM_DEPTH = 20
# the thread's norm a follow-up is searched within, as conversation.within_norm appends it
_THREAD_NORM = re.compile(r"\s*\([^()]*\)\s*$")
# A scope question ("a quem se aplica…") gets the scope clauses of the norms its first
# passages come from: the first of them is the norm named or meant, the second a fallback.
_SCOPE_NORMS = 2
_WHO_IS = re.compile(r"^\W*(?:e\s+)?quem\s+(?:e|sao)\s+(?:o|a|os|as)\s")


# A question about when a norm came into force ("quando a LGPD entrou em vigor?", "quando a
# lei começou a valer?"), not about any other date.
_VIGENCIA_Q = re.compile(
    r"\b(?:entr\w* em vigor|em vigor|vigor\w*|vigencia|come[cç]\w* a (?:valer|vigorar)"
    r"|passou a valer|vale a partir|quando (?:\w+ )?val(?:e|eu)|a partir de quando val\w*)\b"
)
# a question about laws in general, not one norm ("uma lei nova", "qualquer lei", "as leis")
_ANY_LAW = re.compile(
    r"\b(?:uma|qualquer|toda|nova|as)\s+(?:lei|norma)s?\b|\b(?:lei|norma)s?\s+novas?\b"
)
# said of a norm the question names ("a LAI vale desde quando?", "a lei das estatais já vale?")
_VIGENCIA_NAMED = re.compile(
    r"\b(?:val\w* desde quando|desde quando (?:\w+ )?val\w*|ja (?:esta )?val(?:e|endo))\b"
)


class Retrieval:
    """The retrieval steps of :class:`~colmeia.apps.assistant.rag_agent.RagPipeline`."""

    # set by RagPipeline.__init__
    store: Store
    collection: str
    config: RagConfig
    retriever: Retriever

    async def retrieve(self, state: RagState) -> RagState:
        """Hybrid retrieval (lexical, + dense when the store has vectors).

        The query runs as written and, when the question uses everyday words the law words
        otherwise ("recorrer" → "recurso"), once more with the law's words; the two lists are
        fused by reciprocal rank. A definition question also gets the passages that define
        its term, found in the collection's definition index.
        """
        query = state["query"]
        analysis = dict(state.get("analysis", {}))
        year = analysis.get("filters", {}).get("year")
        filters = Filters(year=year) if year else None
        queries = [query]
        extra = analysis.get("legal_terms", "")
        if extra:
            queries.append(f"{query} {extra}")
        lists: list[list[Hit]] = []
        for q in queries:
            try:
                lists.append(await self.retriever.asearch(q, self.config.k * 3, filters=filters))
            except QueryError:
                lists.append([])
        index = DefinitionIndex.for_collection(self.store, self.collection)
        # Lay words to the law's words from the corpus itself: the passages nearest the
        # question in the vector space say what the law calls it ("devolver" lands near
        # "desistir do contrato"); their rarest words search once more.
        extra_words = neighbour_terms(
            state["question"], lists[0] if lists else [], index.idf, self.config.neighbour_terms
        )
        if extra_words:
            analysis["neighbour_terms"] = extra_words
            try:
                lists.append(
                    await self.retriever.asearch(
                        f"{query} {extra_words}", self.config.k * 3, filters=filters
                    )
                )
            except QueryError:
                pass
        list_weights = [1.0] * len(lists)
        synonyms = analysis.get("synonyms")
        if synonyms and self.config.synonym_weight > 0:
            # Words sharing a sense with the question's ("anúncio" → "publicidade"): a list of
            # their own, fused at a low weight — more candidates, the question's words intact.
            try:
                lists.append(
                    await self.retriever.asearch(
                        f"{query} {' '.join(synonyms)}", self.config.k * 3, filters=filters
                    )
                )
                list_weights.append(self.config.synonym_weight)
            except QueryError:
                pass
        earlier = state.get("hits", [])
        if earlier:
            # A reformulated query (a retry) adds candidates to what the question itself found;
            # it does not replace them: it drops the question's words, and on the lay
            # development set a retry's list alone lost first places the question's list had.
            lists.insert(0, list(earlier))
            list_weights.insert(0, 1.0)
        hits = _fuse(lists, weights=list_weights)
        asked_law = analysis.get("filters", {}).get("law_number")
        if asked_law:
            # "o tribunal pode multar os gestores, oq a constituição fala?": the norm named is
            # the one asked; its passages come first among the candidates (a grade bonus alone
            # let the CDC's sanctions lead). The others stay after them, for a question the
            # named norm does not answer
            def of_asked(found: Sequence[Hit]) -> list[Hit]:
                return [
                    h for h in found if law_key(parse_legal_path(h.citation.path).law) == asked_law
                ]

            own = of_asked(hits)
            # the norm typed in the question, not the thread's one a follow-up is searched
            # within ("… (Lei 8.078/1990)", conversation.within_norm): a follow-up may have
            # moved on to another norm, which a deeper search of the thread's would bury
            typed = _THREAD_NORM.sub("", state["question"])
            if len(own) < self.config.k and named_norms(typed):
                # "a constituição fala alguma coisa sobre obrigatoriedade de licitação?": the
                # words are a statute's everyday vocabulary (Lei 13.303 says "licitação" in
                # hundreds of passages), and the first candidates held none of the norm named;
                # a deeper search finds the named norm's own passages on those words
                try:
                    deeper = await self.retriever.asearch(
                        query, self.config.k * _NAMED_NORM_DEPTH, filters=filters
                    )
                except QueryError:
                    deeper = []
                seen = {h.chunk_id for h in own}
                own += [h for h in of_asked(deeper) if h.chunk_id not in seen]
            if own:
                hits = own + [h for h in hits if h not in own]
        named = analysis.get("filters", {})
        if named.get("law_number") and named.get("article"):
            # "o que diz o art. 49 da Lei 9.784?": that article's passages, looked up exactly
            wanted = ArticleIndex.for_collection(self.store, self.collection).lookup(
                named["law_number"], named["article"]
            )
            found = self.store.get_chunks(self.collection, wanted) if wanted else {}
            first = [_hit(found[c], self.collection) for c in wanted if c in found]
            # the inciso or paragraph named leads its article's passages
            first.sort(key=lambda h: not _names_part(named, parse_legal_path(h.citation.path)))
            hits = first + [h for h in hits if h.chunk_id not in set(wanted)]
        named_law = str(analysis.get("filters", {}).get("law_number", ""))
        folded = _fold(state["question"])
        any_law = not named_law and _ANY_LAW.search(folded) is not None
        if _VIGENCIA_Q.search(folded) or (
            (named_law or any_law) and _VIGENCIA_NAMED.search(folded)
        ):
            # "quando a LGPD entrou em vigor?": the answer is the norm's own vigência clause,
            # whatever words it shares with the question — the named norm's (wherever its
            # passages came), else those of the norms the first passages come from
            norms = list(dict.fromkeys(h.citation.path.split(",")[0].strip() for h in hits[:5]))
            named_norm = [n for n in index.in_force if named_law and law_key(n) == named_law]
            norms = named_norm or norms[:2]  # the norm named, else those the search found
            wanted = [cid for n in norms for cid in index.in_force.get(n, [])]
            if any_law:
                # "uma lei nova vale a partir de quando?": no norm's own clause answers a
                # question about laws in general, the general rule does (LINDB's "a lei começa
                # a vigorar…", LC 95's "A vigência da lei…"); the ranking picks among them
                wanted = list(index.general_in_force)
            have = {h.chunk_id for h in hits}
            found = self.store.get_chunks(self.collection, [c for c in wanted if c not in have])
            clauses = [_hit(found[c], self.collection) for c in wanted if c in found]
            clauses += [h for h in hits if h.chunk_id in set(wanted)]
            hits = clauses + [h for h in hits if h.chunk_id not in set(wanted)]
            analysis["in_force"] = [h.chunk_id for h in clauses]
            # whose clause it is, known (the norm named, or laws in general) or guessed (the
            # norms the first passages come from)
            analysis["in_force_known"] = bool(named_norm or any_law)
        if analysis.get("relation") == "scope":
            # "a quem se aplica a LAI?", "a LGPD vale para jornalistas?": the norm's scope
            # clauses ("Esta Lei aplica-se…", "Subordinam-se ao regime desta Lei") join the
            # front of the candidates — the lay words ("quem tem que cumprir") are not the
            # law's; which clause answers is left to the ranking (the relation's bonus).
            norms = list(dict.fromkeys(h.citation.path.split(",")[0].strip() for h in hits[:5]))
            if named_law:  # the norm the question names, wherever its passages came
                named_norm = [n for n in index.scope if law_key(n) == named_law]
                norms = list(dict.fromkeys([*named_norm, *norms]))
            wanted = [cid for n in norms[:_SCOPE_NORMS] for cid in index.scope.get(n, [])]
            by_id = {h.chunk_id: h for h in hits}
            missing = [c for c in wanted if c not in by_id]
            found = self.store.get_chunks(self.collection, missing) if missing else {}
            by_id.update({c: _hit(found[c], self.collection) for c in missing if c in found})
            clauses = [by_id[c] for c in wanted if c in by_id]
            hits = clauses + [h for h in hits if h.chunk_id not in set(wanted)]
            analysis["scope"] = [h.chunk_id for h in clauses]
        term = analysis.get("filters", {}).get("defines")
        weights = dict.fromkeys(index.lookup(term) if term else [], 1.0)
        relation = analysis.get("relation")
        # "Quem é o encarregado?" asks who the encarregado is: a definition when the
        # collection defines the term ("VIII – encarregado: pessoa indicada…").
        asks_who_is = relation == "who" and _WHO_IS.match(_fold(state["question"]))
        if relation == "definition" or asks_who_is:
            within = index.lookup_within(state["question"])
            if within and asks_who_is:
                analysis["relation"] = "definition"
            for cid, w in within.items():
                weights[cid] = max(w, weights.get(cid, 0.0))
        defining = list(weights)
        if defining:
            # every defining passage goes first, the most specific term first — one the search
            # also found keeps no lower place than one it did not ("dado pessoal sensível"
            # found 28th must not trail "dado pessoal" added at the front)
            known = {h.chunk_id: h for h in hits}
            ids = [i for i in defining if i not in known]
            found = self.store.get_chunks(self.collection, ids) if ids else {}
            known.update({i: _hit(found[i], self.collection) for i in ids if i in found})
            order = sorted((i for i in defining if i in known), key=lambda i: -weights[i])
            front = set(order)
            hits = [known[i] for i in order] + [h for h in hits if h.chunk_id not in front]
            analysis["definitions"] = defining
            analysis["definition_weights"] = weights
        return {"hits": hits, "tried": [*state.get("tried", []), query], "analysis": analysis}

    async def rewrite(self, state: RagState) -> RagState:
        """A new query, by rules (content words only, then only the longer ones).

        Not by the model: which passages an answer rests on is decided without it, so a model
        can change how the answer reads but never which passages the ranking put first.
        """
        tried = state.get("tried", [])
        new = _rule_rewrite(state.get("analysis", {}).get("processed", state["query"]), tried)
        if not new:  # nothing left to try: leave both loops
            return {"rewrites": self.config.max_rewrites, "exhausted": True}
        return {"rewrites": state.get("rewrites", 0) + 1, "query": new}
