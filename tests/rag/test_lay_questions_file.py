"""Which generated questions the search uses (:mod:`colmeia.rag.expansion`): the file
``COLMEIA_LAY_QUESTIONS`` names, read as written (blank lines and blank questions skipped, an
article without questions left out), in place of the shipped one; ``off`` in any letter case
for none; a file that cannot be read or parsed stops with what to do; saved indexes are keyed
on the questions' content, not on the file's name. Documents without questions get nothing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from colmeia.errors import ConfigurationError
from colmeia.rag.expansion import ENV, ArticleExpansion, expansion_version, shipped_questions
from colmeia.rag.pipeline import ingest
from colmeia.rag.retrieve import Retriever
from colmeia.store import open_store

URN = "urn:lex:br:federal:lei:2020-01-01;9999"
CDC_49 = "urn:lex:br:federal:lei:1990-09-11;8078!art49"
ROWS = [
    ("Art. 59, caput", "É de dez dias o prazo para interposição de recurso.", "art59_cpt"),
    ("Art. 60, caput", "Os autos serão arquivados ao fim do processo.", "art60_cpt"),
    ("Art. 61, caput", "A autoridade competente decidirá o pedido.", "art61_cpt"),
]
ASKED = "Quanto tempo eu tenho para contestar a decisão?"


def _write(path: Path, *lines: object) -> Path:
    text = "\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def _law(folder: Path) -> Path:
    folder.mkdir()
    lines = ["Tipo,Rotulo,Num_Inicio,Num_Final,Texto,urn"]
    for n, (label, text, urn) in enumerate(ROWS):
        lines.append(
            f'"CPT","lei_9999_20200101, {label}",{2 * n},{2 * n + 1},'
            f'"[ Regula o processo | ] {text}",{URN}!{urn}'
        )
    (folder / "lei_9999_20200101.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_the_file_named_is_read_as_written_in_place_of_the_shipped_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(
        tmp_path / "mine.jsonl",
        {"article": f"{URN}!art59", "questions": [ASKED, "   ", "E se eu perder o prazo?"]},
        "",
        {"article": f"{URN}!art60", "questions": []},
        {"article": f"{URN}!art61"},
        "   ",
        {"article": f"{URN}!art62", "questions": ["Quem decide o meu pedido?"]},
    )
    # a path pasted with spaces around it still names the file
    monkeypatch.setenv(ENV, f"  {path}  ")
    assert shipped_questions() == {
        f"{URN}!art59": (ASKED, "E se eu perder o prazo?"),
        f"{URN}!art62": ("Quem decide o meu pedido?",),
    }
    assert CDC_49 not in shipped_questions()


def test_the_search_finds_the_article_the_named_file_gives_the_question_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the question is Art. 61's in this file (Art. 59's in test_lay_expansion.py's)
    path = _write(tmp_path / "mine.jsonl", {"article": f"{URN}!art61", "questions": [ASKED]})
    monkeypatch.setenv(ENV, str(path))
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    try:
        ingest(store, "leis", [_law(tmp_path / "lexml")])
        hits = Retriever(store, "leis").search("quanto tempo tenho pra contestar", k=3)
    finally:
        store.close()
    assert [hit.citation.path for hit in hits][:1] == ["Lei 9.999/2020, Art. 61"]


@pytest.mark.parametrize("value", ["off", "OFF", " Off "])
def test_off_in_any_letter_case_turns_the_questions_off(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, value)
    assert shipped_questions() == {}
    assert expansion_version() == "off"


@pytest.mark.parametrize("value", ["", "   "])
def test_unset_or_blank_means_the_shipped_questions(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, value)
    assert any("devolv" in q.lower() for q in shipped_questions()[CDC_49])


def test_saved_indexes_are_keyed_on_the_questions_not_the_files_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    row = {"article": f"{URN}!art59", "questions": [ASKED]}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    versions = {}
    for name, path in {
        "copy 1": _write(tmp_path / "a" / "q.jsonl", row),
        "copy 2": _write(tmp_path / "b" / "q.jsonl", row),
        "one more": _write(tmp_path / "more.jsonl", row, {**row, "article": f"{URN}!art60"}),
    }.items():
        monkeypatch.setenv(ENV, str(path))
        versions[name] = expansion_version()
    monkeypatch.delenv(ENV)
    versions["shipped"] = expansion_version()
    assert versions["copy 1"] == versions["copy 2"]
    assert len({versions["copy 1"], versions["one more"], versions["shipped"]}) == 3


def test_a_file_that_cannot_be_read_names_it_and_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "missing.jsonl"
    monkeypatch.setenv(ENV, str(missing))
    with pytest.raises(ConfigurationError) as caught:
        shipped_questions()
    assert str(caught.value) == (
        f"the generated questions {str(missing)!r} cannot be read (No such file or directory): "
        f"point {ENV} at a JSONL of generated questions (bench/doc2query.py writes one) "
        "or set it to 'off'"
    )


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("not json", "not JSON"),
        ('["a list"]', "not an object"),
        ('{"questions": ["Posso?"]}', "no article"),
        ('{"article": "x", "questions": 3}', "questions not a list"),
    ],
)
def test_a_line_that_is_not_an_article_and_its_questions_is_named_by_its_number(
    line: str, why: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = {"article": f"{URN}!art59", "questions": [ASKED]}
    path = _write(tmp_path / "bad.jsonl", good, "", line)
    monkeypatch.setenv(ENV, str(path))
    with pytest.raises(ConfigurationError) as caught:
        shipped_questions()
    assert str(caught.value) == (
        f"line 3 of the generated questions ({path}) is not "
        '{"article": URN, "questions": [...]} (with "passages": [URN, ...] for a part of an '
        "article): fix or regenerate the file"
    ), why


def test_documents_without_questions_score_nothing() -> None:
    # a collection of reports, none with questions: nothing to index, every passage scores 0
    table = {f"{URN}!art59": ("Quanto tempo?",)}
    other = ArticleExpansion(["relatorio.pdf", "ata.pdf"], table)
    assert not other
    assert other.questions == []
    np.testing.assert_array_equal(other.per_passage(other.best_of([])), [0.0, 0.0])
    # and an empty collection has an empty expansion
    empty = ArticleExpansion([], table)
    assert not empty
    assert empty.per_passage(empty.best_of([])).tolist() == []


def test_a_change_of_questions_in_a_running_process_is_searched_not_the_index_held_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the same store and collection searched before and after COLMEIA_LAY_QUESTIONS changes
    # (a service reconfigured in place, a trainer asking one half of the questions): the
    # index held in memory is the one built for the questions in use
    first = _write(tmp_path / "first.jsonl", {"article": f"{URN}!art61", "questions": [ASKED]})
    second = _write(tmp_path / "second.jsonl", {"article": f"{URN}!art59", "questions": [ASKED]})
    store = open_store(f"sqlite:///{tmp_path / 'laws.db'}")
    try:
        ingest(store, "leis", [_law(tmp_path / "lexml")])
        found = []
        for path in (first, second):
            monkeypatch.setenv(ENV, str(path))
            hits = Retriever(store, "leis").search("quanto tempo tenho pra contestar", k=3)
            found.append(hits[0].citation.path)
    finally:
        store.close()
    assert found == ["Lei 9.999/2020, Art. 61", "Lei 9.999/2020, Art. 59"]


def test_a_part_of_a_long_article_lifts_its_own_passages_beside_the_article(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # questions written from an article's later part belong to that part's passages: the
    # article's own questions stay with every passage, the part's go only to its own (and a
    # part never takes the article's place, even when it names the article itself)
    path = _write(
        tmp_path / "mine.jsonl",
        {"article": f"{URN}!art59", "questions": [ASKED]},
        {
            "article": f"{URN}!art59",
            "passages": [f"{URN}!art59_par2", f"{URN}!art59"],
            "questions": ["E se o prazo cair num feriado?"],
        },
    )
    monkeypatch.setenv(ENV, str(path))
    table = shipped_questions()
    assert table[f"{URN}!art59"] == (ASKED,)
    assert table[f"{URN}!art59_par2"] == ("E se o prazo cair num feriado?",)
    docs = [
        f"{URN}!art59_cpt",
        f"{URN}!art59_par2",
        f"{URN}!art59_par2#1",
        f"{URN}!art60_cpt",
        f"{URN}!art59",  # the passage of the whole article: the article's questions, once
    ]
    exp = ArticleExpansion(docs, table)
    assert exp.articles == [f"{URN}!art59", f"{URN}!art59"]
    assert exp.rows.tolist() == [0, 1, 1, -1, 0]
    assert exp.questions == [ASKED, ASKED, "E se o prazo cair num feriado?"]
    # the part's passages are as near as the nearer of the article's and the part's questions
    np.testing.assert_allclose(exp.best_of([0.5, 0.5, 0.9]), [0.5, 0.9])


def test_a_part_of_an_article_without_questions_of_its_own_still_has_its_parts() -> None:
    part = ("E se o prazo cair num feriado?",)
    exp = ArticleExpansion([f"{URN}!art61_cpt", f"{URN}!art61_par2"], {f"{URN}!art61_par2": part})
    assert exp.rows.tolist() == [-1, 0]
    assert exp.questions == list(part)
