"""How ``rank_articles`` scores and orders, number by number: a passage's score is half its
retrieval rank (``10 / (10 + position)``) and half its grade, plus the relation bonus (0.12)
when it states what the question asks and any caller's boost; an article scores its best
passage plus 0.04 for each further passage of it (three at most); a passage outside any
article keeps six tenths of its score and stands alone."""

from __future__ import annotations

import pytest

from colmeia.apps.assistant.ranking import rank_articles
from colmeia.rag.retrieve import Citation, Hit


def hit(chunk_id: str, path: str, text: str = "texto") -> Hit:
    """A retrieved passage of the law at ``path``."""
    return Hit(chunk_id, chunk_id, 1.0, text, Citation("Lei", 1, path))


def test_a_passage_scores_half_its_rank_and_half_its_grade() -> None:
    """The first passage graded 0.8 scores 0.5 + 0.4; the second, without a grade, only its
    rank: 0.5 · 10/11. Articles found once get no extra-passage bonus."""
    hits = [hit("a", "Lei 9.784/1999, Art. 58"), hit("b", "Lei 9.784/1999, Art. 59")]
    ranked = rank_articles(hits, {"a": 0.8})
    assert [r.key for r in ranked] == ["9784:58", "9784:59"]
    assert [r.score for r in ranked] == pytest.approx([0.9, 0.5 * 10 / 11])


def test_the_grade_can_outweigh_the_retrieval_order() -> None:
    """A passage retrieved second but graded fully beats an ungraded first one."""
    hits = [hit("a", "Lei 9.784/1999, Art. 58"), hit("b", "Lei 9.784/1999, Art. 59")]
    ranked = rank_articles(hits, {"b": 1.0})
    assert [r.key for r in ranked] == ["9784:59", "9784:58"]
    assert ranked[0].score == pytest.approx(0.5 * 10 / 11 + 0.5)


def test_no_relation_asked_gives_no_bonus_whatever_the_text() -> None:
    """A passage stating a deadline gets no bonus when the question asks no relation, said or
    not; asked for a deadline, it gets 0.12."""
    hits = [hit("y", "Lei 9.784/1999, Art. 59", "cabe recurso em dez dias, contados da ciência")]
    assert rank_articles(hits, {"y": 0.6})[0].score == pytest.approx(0.8)
    assert rank_articles(hits, {"y": 0.6}, "other")[0].score == pytest.approx(0.8)
    assert rank_articles(hits, {"y": 0.6}, "deadline")[0].score == pytest.approx(0.92)


def test_a_boost_is_added_to_the_passages_own_score() -> None:
    """The caller's boost (the passage defining the asked term, say) adds to, not replaces."""
    hits = [hit("d", "Lei 13.709/2018, Art. 5º, inciso II"), hit("e", "Lei 13.709/2018, Art. 6º")]
    ranked = rank_articles(hits, {"d": 0.6, "e": 0.6}, boost=lambda h: 0.25 * (h.chunk_id == "d"))
    assert [r.key for r in ranked] == ["13709:5", "13709:6"]
    assert [r.score for r in ranked] == pytest.approx([0.5 + 0.3 + 0.25, 0.5 * 10 / 11 + 0.3])


def test_each_further_passage_of_an_article_adds_a_little_up_to_three() -> None:
    """Five passages of Art. 18: its best one's score plus 3 × 0.04, not 4 × 0.04."""
    hits = [hit(f"a18-{i}", f"Lei 13.709/2018, Art. 18, inciso {i}") for i in "IV"]
    hits += [hit(f"b18-{i}", f"Lei 13.709/2018, Art. 18, inciso {i}") for i in "XL"]
    hits.append(hit("c18", "Lei 13.709/2018, Art. 18"))
    [article] = rank_articles(hits, {})
    assert article.key == "13709:18"
    assert article.score == pytest.approx(0.5 + 3 * 0.04)
    assert [h.chunk_id for h in article.hits] == ["a18-I", "a18-V", "b18-X", "b18-L", "c18"]


def test_a_passage_outside_any_article_ranks_after_the_articles_on_its_own() -> None:
    """Two chapter texts of the LGPD, retrieved first and graded fully, keep six tenths of
    their score each, stay apart (they cannot be cited down to a dispositivo), and rank after
    an article that scores less than they did."""
    hits = [
        hit("cap2", "Lei 13.709/2018, Capítulo II"),
        hit("cap3", "Lei 13.709/2018, Capítulo III"),
        hit("a18", "Lei 13.709/2018, Art. 18"),
    ]
    ranked = rank_articles(hits, {"cap2": 1.0, "cap3": 1.0, "a18": 0.4})
    assert [r.key for r in ranked] == ["13709:18", "chunk:cap2", "chunk:cap3"]
    assert [r.score for r in ranked] == pytest.approx(
        [0.5 * 10 / 12 + 0.2, 0.6 * 1.0, 0.6 * (0.5 * 10 / 11 + 0.5)]
    )
    assert [len(r.hits) for r in ranked] == [1, 1, 1]


def test_two_passages_of_an_article_tied_on_score_keep_the_retrieval_order() -> None:
    """The first passage (rank 1.0, grade 0) and the eleventh (rank 0.5, grade 0.5) both score
    exactly 0.5: the article is shown by the one retrieved first."""
    hits = [hit("caput", "Lei 9.784/1999, Art. 59")]
    hits += [hit(f"other{i}", f"Lei 9.784/1999, Art. {100 + i}") for i in range(9)]
    hits.append(hit("par1", "Lei 9.784/1999, Art. 59, § 1º"))
    ranked = rank_articles(hits, {"par1": 0.5})
    article = next(r for r in ranked if r.key == "9784:59")
    assert [h.chunk_id for h in article.hits] == ["caput", "par1"]
    assert article.best.chunk_id == "caput"
