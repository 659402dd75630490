"""The five-agent moderation loop as a LangGraph ``StateGraph``.

::

    policy check of the original answer (code, before any model)
      │
    START → reviewers (semantic ∥ contextual) ── sum > threshold, no violation → KEEP_ORIGINAL
                 │ flagged                   ↑ on each rewrite that keeps the policy
                 ↓                           │
             suggester → rewriter → policy check ── violation, below the cap → rewriter again
                            ↑          │            violation at the cap ──────→ DO_NOT_ANSWER
                            │          └─ cannot rewrite ──────────────────────→ DO_NOT_ANSWER
                            │      reviewers → decider ── answer ──────────────→ ANSWER_REVISED
                            └── rewrite_again, below the cap ─┤
                                  do_not_answer, or rewrite_again at the cap → DO_NOT_ANSWER

The two reviewers are separate agents (own prompt, schema, model and trail step) run
concurrently inside one ``reviewers`` node: one graph step per review round instead of a
fan-out, a join and a gate node, which measured ~20 % less framework CPU per model call.
Each agent node sends its model only what that role needs (no shared chat history) and asks
for a Pydantic schema through ``ChatModel.structured_result``.

Code, not a model, enforces the rewrite cap (a counter in the state and a conditional edge)
and the store policy (:mod:`colmeia.apps.moderation.policy`): a rewrite that breaks the policy
never reaches the reviewers or the decider, so the decider only ever accepts a rewrite that
keeps it (checked as it was written: the answer that goes out is that very text, under the same
policy and context). A :class:`~colmeia.errors.ModelError` ends the item as ``ERROR`` with the reason
and what the failed call cost; an unexpected exception does too. Either way the steps already
taken are kept: each step is appended, as it finishes, to a list that lives outside the graph's
state. The graph is compiled once per :class:`Moderator`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, TypedDict, TypeVar

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from colmeia.apps.moderation.documents import Passage, ProductDocuments
from colmeia.apps.moderation.language import language_name
from colmeia.apps.moderation.policy import Policy, PolicySet, Violation, context_text
from colmeia.apps.moderation.records import AgentView, ModerationItem, agent_view
from colmeia.apps.moderation.roles import AUDIT_LANGUAGES, ROLES, Role, RoleModel
from colmeia.apps.moderation.schemas import (
    MAX_SUGGESTIONS,
    ContextualReview,
    Decision,
    Rewrite,
    SemanticReview,
    Suggestions,
)
from colmeia.errors import (
    ConfigurationError,
    ModelError,
    ModelHTTPError,
    ModelOutputError,
    ModelTimeoutError,
    ModelUnreachableError,
)
from colmeia.llm.base import NOT_GIVEN, ChatModel, Message, Usage
from colmeia.llm.prompts import active_prompts, render_prompt

__all__ = [
    "ENDPOINT_ERRORS",
    "OUTCOMES",
    "REASON_CODES",
    "ModerationOutcome",
    "Moderator",
    "Step",
    "error_kind",
]

log = logging.getLogger(__name__)

ModerationOutcome = Literal["KEEP_ORIGINAL", "ANSWER_REVISED", "DO_NOT_ANSWER", "ERROR"]
OUTCOMES: tuple[ModerationOutcome, ...] = (
    "KEEP_ORIGINAL",
    "ANSWER_REVISED",
    "DO_NOT_ANSWER",
    "ERROR",
)
# Why an item ended as it did (``reason_code`` of a result line).
REASON_CODES: dict[str, str] = {
    "first_review": "KEEP_ORIGINAL: the first review scored it above the threshold",
    "accepted": "ANSWER_REVISED: the decider accepted a rewrite",
    "rewriter_could_not": "DO_NOT_ANSWER: the rewriter could not write an answer from the context",
    "decider_withheld": "DO_NOT_ANSWER: the decider withheld the answer",
    "cap_reached": "DO_NOT_ANSWER: the rewrite cap was reached",
    "policy": "DO_NOT_ANSWER: the rewrite cap was reached with a rewrite that breaks the policy",
}
# ``error_kind`` values that mean the model server itself cannot be used: repeated, they stop
# a batch (see ``run_batch(stop_after=…)``).
ENDPOINT_ERRORS = frozenset({"unreachable", "auth", "not_found"})

_PKG = "colmeia.apps.moderation"
T = TypeVar("T", bound=BaseModel)

# Position of a step inside one round, so parallel reviewers land in the trail in a fixed order.
_ORDER: dict[str, int] = {
    "documents": -1,
    "rewriter": 0,
    "policy": 1,
    "semantic": 2,
    "contextual": 3,
    "suggester": 4,
    "decider": 5,
}


@dataclass(slots=True)
class Step:
    """One agent call (or policy check) in the trail."""

    role: str
    round: int
    output: dict[str, Any] | None
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    requests: int = 0
    retries: int = 0
    repairs: int = 0
    cost: float = 0.0
    simulated: bool = False
    error: str | None = None

    @classmethod
    def of_call(
        cls, role: str, rnd: int, output: dict[str, Any] | None, model: str, usage: Usage | None
    ) -> Step:
        u = usage or Usage()
        return cls(
            role,
            rnd,
            output,
            model,
            u.prompt_tokens,
            u.completion_tokens,
            u.latency_s,
            u.requests,
            u.retries,
            u.repairs,
            u.cost,
            bool(u.simulated),
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "round": self.round,
            "output": self.output,
            "model": self.model,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "latency_s": round(self.latency_s, 4),
            "requests": self.requests,
            "retries": self.retries,
            "repairs": self.repairs,
            "cost": self.cost,
            "simulated": self.simulated,
            "error": self.error,
        }


def error_kind(exc: BaseException) -> str:
    """A short name for what went wrong, kept in ``error_kind`` of an ERROR line."""
    if isinstance(exc, ModelUnreachableError):
        return "unreachable"
    if isinstance(exc, ModelHTTPError):
        return {401: "auth", 403: "auth", 404: "not_found"}.get(exc.status, "http")
    if isinstance(exc, ModelTimeoutError):
        return "timeout"
    if isinstance(exc, ModelOutputError):
        return "output"
    if isinstance(exc, ModelError):
        return "model"
    return "internal"


class _Failed(Exception):
    """A model call failed: ends the item as ERROR (raised inside nodes, caught in moderate)."""

    def __init__(self, role: str, exc: ModelError) -> None:
        super().__init__(f"{role}: {type(exc).__name__}: {exc}")
        self.kind = error_kind(exc)


class _State(TypedDict, total=False):
    view: AgentView
    policy: Policy
    context: str  # context, rules and the documents' passages as one text, for the policy checks
    trail: list[Step]  # shared list, appended to as steps finish (never returned by a node)
    documents: list[dict[str, str]]  # the product's passages shown to the models ([] for none)
    current: str  # the answer under review / the baseline of the next rewrite
    semantic: SemanticReview | None
    contextual: ContextualReview | None
    scores: list[tuple[int, int]]  # [original, each rewrite that reached the reviewers]
    suggestions: list[str]
    feedback: list[str]
    violations: list[str]  # policy violations of the original (told to suggester and rewriter)
    blocked: bool  # the last rewrite broke the policy: back to the rewriter
    revisions: int
    outcome: ModerationOutcome | None
    reason_code: str
    final_answer: str | None
    reason: str


def _system_prompt(role: str, audit_language: str, documents: bool) -> str:
    chosen = active_prompts()
    return _cached_system_prompt(role, audit_language, chosen.sha256 if chosen else "", documents)


@lru_cache(maxsize=64)
def _cached_system_prompt(role: str, audit_language: str, prompts: str, documents: bool) -> str:
    # ``prompts`` (the prompts folder's hash) is part of the key: another folder, another text.
    # ``documents``: whether the product's passages are in the user prompt. The instructions
    # then say how to use them (a fact they state is supported, one they contradict is wrong);
    # a role told to trust "only the context" would otherwise treat a fact found only in the
    # manual as invented, and a small model does not infer the rule from the data block alone.
    return render_prompt(
        _PKG,
        f"{role}.j2",
        part="system",
        audit_language=AUDIT_LANGUAGES[audit_language],
        max_suggestions=MAX_SUGGESTIONS,
        documents=documents,
    )


def _user_prompt(role: str, **variables: Any) -> str:
    return render_prompt(_PKG, f"{role}.j2", part="user", **variables)


def _documents_step(source: ProductDocuments, query: str, passages: list[Passage]) -> Step:
    return Step(
        "documents",
        0,
        {
            "collection": source.collection,
            "query": query,
            "passages": [p.cited() for p in passages],
        },
        "",
    )


def _shown(passages: list[Passage]) -> list[dict[str, str]]:
    """The passages as the templates show them: a short label the models can cite ([D1])."""
    return [
        {"label": f"D{i}", "title": p.title, "text": p.text}
        for i, p in enumerate(passages, start=1)
    ]


def _policy_step(rnd: int, checked: str, violations: list[Violation]) -> Step:
    return Step(
        "policy",
        rnd,
        {"checked": checked, "violations": [v.as_dict() for v in violations]},
        "",
    )


class Moderator:
    """Moderates one item at a time through the compiled graph; safe to share across tasks.

    ``models`` is one ChatModel for every role, or a :class:`RoleModel` per role (see
    :func:`colmeia.apps.moderation.roles.build_role_models`). ``threshold`` and
    ``max_rewrites`` are the defaults a ``policy`` may change per category or store; without a
    policy the default one applies (no phone numbers, e-mails, links or unstated warranties;
    answers in the record's language). Justifications are written in ``audit_language``.
    """

    def __init__(
        self,
        models: ChatModel | Mapping[Role, RoleModel],
        *,
        threshold: float = 8.0,
        max_rewrites: int = 3,
        policy: PolicySet | None = None,
        audit_language: str = "en",
        documents: ProductDocuments | None = None,
    ) -> None:
        if max_rewrites < 1:
            raise ConfigurationError("max_rewrites must be at least 1")
        if audit_language not in AUDIT_LANGUAGES:
            raise ConfigurationError(
                f"audit language {audit_language!r} is not supported; use one of "
                f"{', '.join(AUDIT_LANGUAGES)}"
            )
        if isinstance(models, Mapping):
            missing = [r for r in ROLES if r not in models]
            if missing:
                raise ConfigurationError(f"no model configured for role(s): {', '.join(missing)}")
            self.models: dict[Role, RoleModel] = {r: models[r] for r in ROLES}
        else:
            # Temperature 0 unless told otherwise: a moderation run should be repeatable (the
            # paper's setting); None would leave it to the server's default.
            self.models = {r: RoleModel(models, 0.0, None) for r in ROLES}
        self.threshold = threshold
        self.max_rewrites = max_rewrites
        self.policy = policy or PolicySet()
        self.audit_language = audit_language
        # The product's own documents: read before judging facts (``--context-collection``).
        self.documents = documents
        # The prompts folder is validated now, before any item: a bad template stops the run at
        # start with one line naming the file, not on the first item.
        self.prompts = active_prompts()
        self._graph = self._build().compile(name="moderation")

    @staticmethod
    def recursion_limit(max_rewrites: int) -> int:
        # Steps: first review and suggester, then per rewrite at most rewriter, reviewers,
        # decider; plus slack. The counter is the real cap; this is a backstop against a
        # wiring mistake looping forever.
        return 2 + 3 * max_rewrites + 3

    # ------------------------------------------------------------------ calls

    async def _call(
        self, state: _State, role: Role, rnd: int, output_type: type[T], user: str
    ) -> T:
        rm = self.models[role]
        messages = [
            Message(
                "system", _system_prompt(role, self.audit_language, bool(state.get("documents")))
            ),
            Message("user", user),
        ]
        started = time.perf_counter()
        try:
            result = await rm.model.structured_result(
                messages,
                output_type,
                temperature=NOT_GIVEN if rm.temperature is None else rm.temperature,
                max_tokens=NOT_GIVEN if rm.max_tokens is None else rm.max_tokens,
            )
        except ModelError as exc:
            log.info("%s failed: %s", role, exc)
            step = Step.of_call(role, rnd, None, rm.model.model, exc.usage)
            step.error = f"{type(exc).__name__}: {exc}"
            if exc.usage is None:
                step.latency_s = time.perf_counter() - started
            state["trail"].append(step)
            raise _Failed(role, exc) from exc
        state["trail"].append(
            Step.of_call(role, rnd, result.value.model_dump(), result.model, result.usage)
        )
        return result.value

    # ------------------------------------------------------------------ nodes

    async def _reviewers(self, state: _State) -> dict[str, Any]:
        """Both reviewers on the answer under review, at once; then the threshold gate."""
        v = state["view"]
        rnd = state["revisions"]
        semantic_prompt = _user_prompt(
            "semantic",
            question=v.question,
            answer=state["current"],
            locale=v.locale,
            category=v.category,
            intent=v.intent,
        )
        contextual_prompt = _user_prompt(
            "contextual",
            question=v.question,
            answer=state["current"],
            context=v.context,
            rules=v.rules,
            documents=state["documents"],
            category=v.category,
            intent=v.intent,
        )
        results = await asyncio.gather(
            self._call(state, "semantic", rnd, SemanticReview, semantic_prompt),
            self._call(state, "contextual", rnd, ContextualReview, contextual_prompt),
            return_exceptions=True,
        )
        # Both calls are awaited to the end (their steps are in the trail); then the first
        # failure, if any, ends the item.
        for r in results:
            if isinstance(r, BaseException):
                raise r
        sem, ctx = results
        assert isinstance(sem, SemanticReview)
        assert isinstance(ctx, ContextualReview)
        update: dict[str, Any] = {
            "semantic": sem,
            "contextual": ctx,
            "scores": [*state["scores"], (sem.score, ctx.score)],
        }
        threshold = state["policy"].threshold
        if rnd == 0 and sem.score + ctx.score > threshold and not state["violations"]:
            update.update(
                outcome="KEEP_ORIGINAL",
                reason_code="first_review",
                final_answer=v.answer,
                reason=f"first review {sem.score}+{ctx.score} > {threshold:g}",
            )
        return update

    async def _suggester(self, state: _State) -> dict[str, Any]:
        v = state["view"]
        user = _user_prompt(
            "suggester",
            question=v.question,
            answer=state["current"],
            context=v.context,
            rules=v.rules,
            documents=state["documents"],
            semantic=state["semantic"],
            contextual=state["contextual"],
            policy=state["policy"].instructions(),
            violations=state["violations"],
        )
        value = await self._call(state, "suggester", 0, Suggestions, user)
        return {"suggestions": list(value.suggestions)}

    async def _rewriter(self, state: _State) -> dict[str, Any]:
        v = state["view"]
        policy = state["policy"]
        revision = state["revisions"] + 1
        feedback = state.get("feedback") or []
        if revision == 1 and state["violations"]:
            feedback = [*feedback, *state["violations"]]
        user = _user_prompt(
            "rewriter",
            question=v.question,
            answer=state["current"],
            context=v.context,
            rules=v.rules,
            documents=state["documents"],
            suggestions=state["suggestions"],
            feedback=feedback,
            policy=policy.instructions(),
            language=language_name(policy.language)
            if policy.language
            else "the question's language",
            category=v.category,
            intent=v.intent,
        )
        value = await self._call(state, "rewriter", revision, Rewrite, user)
        if not value.can_rewrite:
            return {
                "outcome": "DO_NOT_ANSWER",
                "reason_code": "rewriter_could_not",
                "reason": f"rewriter cannot rewrite: {value.reason or 'not enough information'}",
            }
        violations = policy.check(value.answer, state["context"])
        update: dict[str, Any] = {
            "current": value.answer,
            "revisions": revision,
            "blocked": bool(violations),
        }
        if violations:
            state["trail"].append(_policy_step(revision, "rewrite", violations))
            update["feedback"] = [f"store policy: {x.message}" for x in violations]
            if revision >= policy.max_rewrites:
                update.update(
                    outcome="DO_NOT_ANSWER",
                    reason_code="policy",
                    reason=f"rewrite cap reached ({policy.max_rewrites} rewrites); the last one "
                    f"breaks the store policy: {'; '.join(x.message for x in violations)}",
                )
        return update

    async def _decider(self, state: _State) -> dict[str, Any]:
        v = state["view"]
        sem, ctx = state["semantic"], state["contextual"]
        revisions = state["revisions"]
        cap = state["policy"].max_rewrites
        user = _user_prompt(
            "decider",
            question=v.question,
            original=v.answer,
            original_scores=state["scores"][0],
            rewrite=state["current"],
            revision=revisions,
            context=v.context,
            rules=v.rules,
            documents=state["documents"],
            suggestions=state["suggestions"],
            semantic=sem,
            contextual=ctx,
            category=v.category,
            intent=v.intent,
        )
        value = await self._call(state, "decider", revisions, Decision, user)
        if value.decision == "answer":
            return {
                "outcome": "ANSWER_REVISED",
                "reason_code": "accepted",
                "final_answer": state["current"],
                "reason": value.reasoning,
            }
        if value.decision == "do_not_answer":
            return {
                "outcome": "DO_NOT_ANSWER",
                "reason_code": "decider_withheld",
                "reason": value.reasoning,
            }
        if revisions >= cap:
            return {
                "outcome": "DO_NOT_ANSWER",
                "reason_code": "cap_reached",
                "reason": f"rewrite cap reached ({cap} rewrites); last verdict: {value.reasoning}",
            }
        assert sem is not None
        assert ctx is not None
        return {"feedback": [value.reasoning, sem.justification, ctx.justification]}

    # ------------------------------------------------------------------ edges

    @staticmethod
    def _after_reviewers(state: _State) -> str:
        if state.get("outcome"):
            return END
        return "suggester" if state["revisions"] == 0 else "decider"

    @staticmethod
    def _after_rewriter(state: _State) -> str:
        if state.get("outcome"):
            return END
        return "rewriter" if state.get("blocked") else "reviewers"

    @staticmethod
    def _after_decider(state: _State) -> str:
        if state.get("outcome"):
            return END
        # at the cap the decider node has already set the outcome (cap_reached): a second
        # check here could never be reached (test_rewrite_cap_is_enforced_by_the_graph)
        return "rewriter"

    def _build(self) -> StateGraph[_State]:
        g: StateGraph[_State] = StateGraph(_State)
        g.add_node("reviewers", self._reviewers)
        g.add_node("suggester", self._suggester)
        g.add_node("rewriter", self._rewriter)
        g.add_node("decider", self._decider)
        g.add_edge(START, "reviewers")
        # each router returns the next node's name (or END) itself: no path map to keep in step
        g.add_conditional_edges("reviewers", self._after_reviewers)
        g.add_edge("suggester", "rewriter")
        g.add_conditional_edges("rewriter", self._after_rewriter)
        g.add_conditional_edges("decider", self._after_decider)
        return g

    # ------------------------------------------------------------------ run

    def policy_for(self, item: ModerationItem | AgentView) -> Policy:
        """The policy that applies to ``item`` (its category's and store's sections)."""
        view = agent_view(item) if isinstance(item, ModerationItem) else item
        store = self.policy.store_of(item) if isinstance(item, ModerationItem) else ""
        return self.policy.resolve(
            category=view.category,
            store=store,
            locale=view.locale,
            question=view.question,
            threshold=self.threshold,
            max_rewrites=self.max_rewrites,
        )

    async def moderate(self, item: ModerationItem | AgentView) -> dict[str, Any]:
        """Run the loop on one item. Returns the result fields (outcome, reason_code,
        final_answer, revisions, scores, policy, trail, usage, error, error_kind); never
        raises for a model failure or a bug in a node."""
        view = agent_view(item) if isinstance(item, ModerationItem) else item
        trail: list[Step] = []
        state: _State = {}  # what _result reads if the item fails before the graph starts
        try:
            policy = self.policy_for(item)
            passages: list[Passage] = []
            if self.documents is not None:
                query, passages = await self.documents.for_record(view)
                trail.append(_documents_step(self.documents, query, passages))
            # What the product's own documents state is context too: a warranty term or a link
            # the manual gives is not a promise the store never made.
            context = "\n\n".join(
                [context_text(view.context, view.rules), *(p.text for p in passages)]
            )
            violations = policy.check(view.answer, context)
            if violations:
                trail.append(_policy_step(0, "original", violations))
            # Only what a node reads before any node writes it: the reviews, suggestions,
            # feedback, the blocked flag and the ending's fields are each set by the node that
            # decides them before another reads them.
            state = {
                "view": view,
                "policy": policy,
                "context": context,
                "trail": trail,
                "documents": _shown(passages),
                "current": view.answer,
                "scores": [],
                "violations": [f"store policy: {x.message}" for x in violations],
                "revisions": 0,
            }
            final: dict[str, Any] = await self._graph.ainvoke(
                state, config={"recursion_limit": self.recursion_limit(policy.max_rewrites)}
            )
        except _Failed as exc:
            return _result(state, trail, error=str(exc), kind=exc.kind)
        except Exception as exc:  # a bug must cost one item, not the batch
            log.exception("moderation graph failed")
            return _result(
                state, trail, error=f"internal error: {type(exc).__name__}: {exc}", kind="internal"
            )
        return _result(final, trail)


def _scores(trail: list[Step]) -> list[tuple[int, int]]:
    """(semantic, contextual) of every review round that both reviewers finished."""
    rounds: dict[int, dict[str, int]] = {}
    for t in trail:
        if t.role in ("semantic", "contextual") and t.output is not None:
            rounds.setdefault(t.round, {})[t.role] = int(t.output["score"])
    return [(r["semantic"], r["contextual"]) for _, r in sorted(rounds.items()) if len(r) == 2]


def _documents_cited(trail: list[Step]) -> dict[str, Any] | None:
    """Which passages of which collection the models were shown (None: no collection used)."""
    for t in trail:
        if t.role == "documents":
            assert t.output is not None  # made by _documents_step, never by a failed call
            return {
                "collection": t.output["collection"],
                "passages": [p["id"] for p in t.output["passages"]],
            }
    return None


def _result(
    state: Mapping[str, Any],
    trail: list[Step],
    *,
    error: str | None = None,
    kind: str | None = None,
) -> dict[str, Any]:
    # Scores and revisions are read from the trail, not the state: after an exception inside a
    # node the graph's state is gone, but every step that finished is in the trail.
    trail = sorted(trail, key=lambda s: (s.round, _ORDER[s.role]))
    scores = _scores(trail)
    # Every answer of the rewriter is an attempt, "cannot rewrite" too (the paper counts it).
    revisions = sum(1 for t in trail if t.role == "rewriter" and t.output)
    outcome = "ERROR" if error else (state.get("outcome") or "ERROR")
    if outcome == "ERROR" and not error:
        error, kind = "the graph ended without an outcome", "internal"
    policy: Policy | None = state.get("policy")
    calls = [t for t in trail if t.role not in ("policy", "documents")]
    usage = {
        "calls": len(calls),
        "requests": sum(t.requests for t in calls),
        "prompt_tokens": sum(t.prompt_tokens for t in calls),
        "completion_tokens": sum(t.completion_tokens for t in calls),
        "retries": sum(t.retries for t in calls),
        "repairs": sum(t.repairs for t in calls),
        "cost": round(sum(t.cost for t in calls), 8),
        "latency_s": round(sum(t.latency_s for t in calls), 4),
        "simulated": sum(1 for t in calls if t.simulated),
        "failed_calls": sum(1 for t in calls if t.error),
    }
    return {
        "outcome": outcome,
        # without an error the graph ended on an outcome, and every ending sets both
        "reason_code": None if error else state["reason_code"],
        "final_answer": state.get("final_answer"),  # set by the two endings that answer
        "revisions": revisions,
        "scores": {
            "original": {"semantic": scores[0][0], "contextual": scores[0][1]} if scores else None,
            "rewrites": [{"semantic": a, "contextual": b} for a, b in scores[1:]],
        },
        "reason": "" if error else state["reason"],
        "policy": None
        if policy is None
        else {
            "name": policy.name,
            "threshold": policy.threshold,
            "max_rewrites": policy.max_rewrites,
            "language": policy.language,
            "violations": [
                {"round": t.round, "checked": t.output["checked"], **v}
                for t in trail
                if t.role == "policy" and t.output
                for v in t.output["violations"]
            ],
        },
        "documents": _documents_cited(trail),
        "trail": [t.as_dict() for t in trail],
        "usage": usage,
        "error": error,
        "error_kind": kind,  # given with an error, and only then
    }
