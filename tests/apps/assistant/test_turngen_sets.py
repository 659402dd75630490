"""The generated conversation sets (``colmeia eval assistant --set generated-dev|generated-test|
generated-test2``): deterministic by seed, large enough, every kind of turn the assistant must
understand, and two frozen test sets that use words the development set and the training corpus
never do."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter

from colmeia.apps.assistant.conversations import load_conversations
from colmeia.apps.assistant.turngen import generate_set, set_folder, training_corpus
from colmeia.apps.assistant.turngen.files import render
from colmeia.apps.assistant.turngen.held2 import ASPECTS2, LEX2
from colmeia.apps.assistant.turngen.lexicon import ASPECTS, LEX


def _shipped(name: str) -> dict[str, object]:
    path = set_folder(name) / "conversations_generated.json"
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_the_shipped_sets_are_what_the_generator_writes() -> None:
    # the frozen test set is regenerated only to prove it still is byte for byte the same
    for name, split in (
        ("generated-dev", "dev"),
        ("generated-test", "test"),
        ("generated-test2", "test2"),
    ):
        path = set_folder(name) / "conversations_generated.json"
        assert path.read_text(encoding="utf-8") == render(split), name


def test_the_same_seed_writes_the_same_set_and_another_seed_another() -> None:
    assert generate_set("dev", 5, 20) == generate_set("dev", 5, 20)
    first = [t["user"] for c in generate_set("dev", 5, 20)["conversations"] for t in c["turns"]]
    other = [t["user"] for c in generate_set("dev", 6, 20)["conversations"] for t in c["turns"]]
    assert first != other


def test_the_sets_are_big_enough_and_load_as_conversations() -> None:
    for name in ("generated-dev", "generated-test", "generated-test2"):
        conversations, problems = load_conversations(set_folder(name))
        assert problems == []
        assert len(conversations) >= 150
        assert sum(len(c.turns) for c in conversations) >= 500
        # played on the synthetic registry the file names, not the default one
        assert conversations[0].registry is not None


def test_every_kind_of_turn_is_in_both_sets() -> None:
    wanted = {
        "case:status", "case:rapporteur", "case:parties", "case:location", "case:since",
        "case:movements", "case:judgement", "case:archive", "case:documents",
        "case:deadlines", "find", "law", "mixed", "scope", "institutional", "greeting",
        "reply", "thread", "injection", "missing_norm",
    }  # fmt: skip
    for name in ("generated-dev", "generated-test", "generated-test2"):
        data = _shipped(name)
        intents = Counter(
            str(t["intent"])
            for c in data["conversations"]  # type: ignore[attr-defined]
            for t in c["turns"]
        )
        assert wanted <= set(intents), (name, wanted - set(intents))


def _phrases(split: str) -> set[str]:
    data = generate_set(split, None, 340)
    return {t["user"] for c in data["conversations"] for t in c["turns"]}


def test_the_test_set_uses_held_apart_words_the_training_corpus_never_sees() -> None:
    held = [p.split("|")[-1] for pool in LEX.values() for p in pool.held if len(p) > 12]
    held += [p for pool in ASPECTS.values() for p in pool.held]
    stems = {h.split("{")[0].strip().lower() for h in held if len(h.split("{")[0].strip()) > 8}
    training = " ".join(x.text.lower() for x in training_corpus(conversations=300))
    test_text = " ".join(_phrases("test")).lower()
    in_test = {s for s in stems if s in test_text}
    assert len(in_test) >= 10  # the test set does use them
    assert not {s for s in stems if s in training}  # nothing was learnt from them


def _template(text: str) -> re.Pattern[str]:
    """A held-apart phrasing as a pattern over folded, lower-case utterances (slots: anything)."""
    parts = [re.escape(_fold(p).strip(" ?")) for p in re.split(r"\{\w+\}", text.split("|")[-1])]
    return re.compile(".+?".join(parts))


def _fold(text: str) -> str:
    nfd = unicodedata.normalize("NFD", text.lower())
    return "".join(c for c in nfd if unicodedata.category(c) != "Mn")


def test_the_second_test_set_uses_its_own_words_nothing_else_draws_from() -> None:
    own = [p for words in (*LEX2.values(), *ASPECTS2.values()) for p in words]
    # "eai", " obg", "proc {n}/{yy}", "{case} {law}": too few words of their own to be anyone's
    own = [
        p for p in own if sum(c.isalpha() for c in re.sub(r"\{\w+\}", "", p.split("|")[-1])) >= 12
    ]
    patterns = [_template(p) for p in own]
    training = [_fold(x.text) for x in training_corpus(conversations=1500)]
    dev = [_fold(t) for t in _phrases("dev")]
    test2 = [_fold(t) for t in _phrases("test2")]
    used = {p.pattern for p in patterns if any(p.search(t) for t in test2)}
    assert len(used) >= 60  # the second test set does use them
    learnt = [p.pattern for p in patterns if any(p.search(t) for t in training)]
    # "quem ta envolvido": the common "quem está envolvido no {c}?" typed with the training
    # corpus's abbreviations ("está" → "ta"), not a held-apart phrasing
    assert [p for p in learnt if p != re.escape("quem ta envolvido")] == []
    assert [p.pattern for p in patterns if any(p.search(t) for t in dev)] == []
