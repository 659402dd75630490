"""When the rules are sure a question is about the laws, their route wins over a model's.

A small model as coordinator sometimes hands a plain law question to the case-search agent or
answers it itself (3 of the first 20 law questions on the 1.5B local model), and the right
passage is lost although the rules would have sent it to the documents. :func:`legal_route`
says when the rules are *confident*: the question has no case part (no case number, no case
words, no search for a case; :func:`~colmeia.apps.assistant.offline.route_of` sends it to the
documents) and at least one positive sign that the collection answers it:

* it names a norm or uses the words of legislation or decisions ("lei", "artigo", "LGPD",
  "código", "acórdão"…);
* it uses a term the collection itself defines ("dado pessoal", "fornecedor", "concessão");
* the collection's best-ranked passage covers most of its words, weighted by rarity (a
  passage that nearly restates a question of three or more content words).

A question without any of these (a greeting, "qual o horário do tribunal?", "quem é o
presidente?") is left to the model, and so is a follow-up that leans on an earlier turn ("E se
o pedido for negado, posso recorrer?") without naming its norm: the rules would hand the RAG
agent the fragment, the model can write the self-contained task. No model is asked; the model
still writes the answer over the RAG agent's passages.
"""

from __future__ import annotations

from dataclasses import dataclass

from colmeia.apps.assistant.conversation import leans_on_context
from colmeia.apps.assistant.definitions import DefinitionIndex
from colmeia.apps.assistant.offline import route_of
from colmeia.apps.assistant.rag_agent import RagPipeline
from colmeia.apps.assistant.rag_query import analyze_query
from colmeia.apps.assistant.rag_scores import grade_passage
from colmeia.apps.assistant.relations import content_terms
from colmeia.errors import ColmeiaError

__all__ = ["RuleRoute", "legal_route"]

# A passage covering this share of the question's words (rarity-weighted), for a question of
# at least _MIN_TERMS content words, is taken as the collection answering it. On the shipped
# laws the in-scope questions that carry no other sign score 0.69-1.0 and the out-of-scope
# ones tried score up to 0.69 ("qual o horário de funcionamento do tribunal?"): the margin
# is kept on the side of leaving a question to the model.
_COVERAGE = 0.75
_MIN_TERMS = 3


@dataclass(frozen=True, slots=True)
class RuleRoute:
    """The rules' route for a question and why (recorded with the handoff)."""

    target: str
    why: str


async def legal_route(
    question: str, rag: RagPipeline, *, earlier_turns: bool = False
) -> RuleRoute | None:
    """The documents route when the rules are confident ``question`` is a law question with
    no case part; ``None`` when the model should decide (``earlier_turns``: the thread has
    turns a follow-up may lean on)."""
    if not question.strip() or route_of(question) != "rag":
        return None
    analysis = analyze_query(question)
    if analysis["filters"].get("law_number"):
        return RuleRoute("rag", f"a pergunta cita a norma {analysis['filters']['law_number']}")
    if earlier_turns and leans_on_context(question):
        return None
    if analysis["type"] != "general":
        return RuleRoute("rag", "a pergunta usa termos de legislação ou de decisões")
    index = DefinitionIndex.for_collection(rag.store, rag.collection)
    if index.lookup_within(question):
        return RuleRoute("rag", "a pergunta usa um termo que a coleção define")
    if len(set(content_terms(question))) < _MIN_TERMS:
        return None
    try:
        hits = await rag.retriever.asearch(question, 5)
    except ColmeiaError:
        return None
    best = max((grade_passage(question, h, analysis, index.idf) for h in hits), default=0.0)
    if best >= _COVERAGE:
        return RuleRoute("rag", f"um trecho da coleção cobre {best:.2f} dos termos da pergunta")
    return None
