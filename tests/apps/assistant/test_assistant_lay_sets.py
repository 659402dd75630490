"""The lay-word question sets: a development set to tune on and a frozen test set, both with
gold articles that exist in the shipped laws, reachable as ``colmeia eval assistant --set``."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from colmeia.apps.assistant.evaluation import QUESTION_FILES, SETS, evaluate, load_questions
from colmeia.errors import ConfigurationError

DATA = Path(__file__).resolve().parents[3] / "data"


def _shipped_articles() -> set[tuple[str, str]]:
    found = set()
    for path in (DATA / "laws" / "lexml").glob("*.csv"):
        law = re.search(r"_(\d+)_\d{8}\.csv$", path.name)
        assert law is not None
        with path.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                art = re.search(r"Art\. ([\dA-Z-]+)", row["Rotulo"])
                if art:
                    found.add((law.group(1), art.group(1)))
    return found


def test_dev_and_test_sets_are_big_enough_apart_and_point_at_real_articles() -> None:
    dev, dev_problems = load_questions(DATA / "assistant" / QUESTION_FILES["lay-dev"])
    test, test_problems = load_questions(DATA / "assistant" / QUESTION_FILES["lay-test"])
    assert dev_problems == [] and test_problems == []
    assert len(dev) >= 100 and len(test) >= 50
    assert not {q.question for q in dev} & {q.question for q in test}
    articles = _shipped_articles()
    for item in [*dev, *test]:
        assert item.gold, item.id
        for g in item.gold:
            assert (g.law, g.article) in articles, (item.id, g.law, g.article)


def test_the_sets_are_offered_by_name_and_an_unknown_one_is_refused(tmp_path: Path) -> None:
    assert {"laws", "lay-dev", "lay-test", "faquad", "conversations"} <= set(SETS)
    import asyncio

    with pytest.raises(ConfigurationError, match="lay-test"):
        asyncio.run(evaluate("lay-tset", DATA, None))


def _shipped_with_constitution() -> set[tuple[str, str]]:
    """(law, article) of the nine laws and of the Constitution (law ``CF``); "Art. 7º-A" →
    ``7-A``, as the gold writes it."""
    found = set()
    folders = [DATA / "laws" / "lexml", DATA / "laws" / "constituicao" / "lexml"]
    for path in [p for folder in folders for p in folder.glob("*.csv")]:
        if path.name.startswith("adct_"):
            continue
        law = re.search(r"_(\d+)_\d{8}\.csv$", path.name)
        key = "CF" if path.name.startswith("constituicao_") else (law.group(1) if law else "")
        with path.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                art = re.search(r"Art\. (\d+)[º°]?(-[A-Z])?", row["Rotulo"])
                if art:
                    found.add((key, art.group(1) + (art.group(2) or "")))
    return found


def test_the_second_frozen_test_set_is_apart_and_points_at_real_articles() -> None:
    second, problems = load_questions(DATA / "assistant" / QUESTION_FILES["lay-test2"])
    dev, _ = load_questions(DATA / "assistant" / QUESTION_FILES["lay-dev"])
    first, _ = load_questions(DATA / "assistant" / QUESTION_FILES["lay-test"])
    assert problems == [] and len(second) == 40
    assert not {q.question for q in second} & {q.question for q in [*dev, *first]}
    articles = _shipped_with_constitution()
    assert any(g.law == "CF" for item in second for g in item.gold)
    for item in second:
        assert item.gold, item.id
        for g in item.gold:
            assert (g.law, g.article) in articles, (item.id, g.law, g.article)


def test_the_third_frozen_test_set_is_apart_and_points_at_real_articles() -> None:
    third, problems = load_questions(DATA / "assistant" / QUESTION_FILES["lay-test3"])
    dev2, dev2_problems = load_questions(DATA / "assistant" / QUESTION_FILES["lay-dev2"])
    others = [
        q
        for name in ("lay-dev", "lay-test", "lay-test2")
        for q in load_questions(DATA / "assistant" / QUESTION_FILES[name])[0]
    ]
    assert problems == dev2_problems == [] and len(third) == 60 and len(dev2) == 100
    assert not {q.question for q in third} & {q.question for q in [*others, *dev2]}
    # the second development set asks about none of the frozen set's articles
    asked = {(g.law, g.article) for item in third for g in item.gold}
    assert not asked & {(g.law, g.article) for item in dev2 for g in item.gold}
    articles = _shipped_with_constitution()
    assert sum(g.law == "CF" for item in third for g in item.gold) == 11
    for item in dev2:
        for g in item.gold:
            assert (g.law, g.article) in articles, (item.id, g.law, g.article)
    for item in third:
        assert item.gold, item.id
        for g in item.gold:
            assert (g.law, g.article) in articles, (item.id, g.law, g.article)
