"""What a refining model is shown of its earlier attempts (colmeia.agents.memory): each entry
as ``[kind iteration (score s)]`` then its text, oldest first, a blank line between; the
newest entries kept whole within ``max_chars`` (the separators counted), the newest alone cut
to fit when it is longer than that; at most ``max_entries`` (20 by default) remembered."""

from __future__ import annotations

from colmeia.agents.memory import MemoryEntry, TrajectoryMemory


def test_entries_render_oldest_first_with_kind_iteration_and_score() -> None:
    memory = TrajectoryMemory()
    memory.add("attempt", "  first answer \n", iteration=1, score=0.25)
    memory.add("critique", "too vague", iteration=1)
    memory.add("lesson", "cite the article")
    assert memory.render() == (
        "[attempt 1 (score 0.25)]\nfirst answer\n\n[critique 1]\ntoo vague\n\n[lesson 0]\n"
        "cite the article"
    )


def test_entries_are_kept_as_given_and_can_be_read_by_kind() -> None:
    memory = TrajectoryMemory()
    memory.add("attempt", "a", iteration=2, score=0.5)
    memory.add("critique", "c", iteration=2)
    memory.add("attempt", "b", iteration=3)
    assert list(memory) == [
        MemoryEntry("attempt", "a", 2, 0.5),
        MemoryEntry("critique", "c", 2, None),
        MemoryEntry("attempt", "b", 3, None),
    ]
    assert [e.content for e in memory.of_kind("attempt")] == ["a", "b"]
    assert memory.of_kind("lesson") == []


def test_twenty_entries_are_remembered_by_default_the_oldest_go_first() -> None:
    memory = TrajectoryMemory()
    for i in range(21):
        memory.add("attempt", f"answer {i}", iteration=i)
    assert len(memory) == 20
    assert [e.iteration for e in memory][:2] == [1, 2]


def test_the_default_budget_is_6000_characters() -> None:
    memory = TrajectoryMemory()
    memory.add("attempt", "x" * 6000)  # "[attempt 0]\n" + 6000: over the budget
    text = memory.render()
    assert len(text) == 6000
    assert text.startswith("[attempt 0]\nxxx")


def _two(max_chars: int, older_length: int) -> str:
    memory = TrajectoryMemory(max_chars=max_chars)
    header = "[old 0]\n"
    memory.add("old", "o" * (older_length - len(header)))
    memory.add("new", "n" * 32)  # "[new 0]\n" + 32 = a block of 40
    return memory.render()


def test_an_older_entry_that_fits_exactly_with_its_blank_line_is_kept() -> None:
    text = _two(100, 100 - 40 - 2)
    assert text.startswith("[old 0]\nooo")
    assert len(text) == 100


def test_an_older_entry_one_character_over_is_left_out_whole() -> None:
    text = _two(100, 100 - 40 - 1)
    assert text == "[new 0]\n" + "n" * 32


def test_the_newest_entry_alone_is_cut_to_the_budget_not_dropped() -> None:
    memory = TrajectoryMemory(max_chars=20)
    memory.add("old", "short")
    memory.add("attempt", "a long answer that does not fit")
    assert memory.render() == "[attempt 0]\na long a"  # 20 characters


def test_a_memory_with_no_room_renders_nothing() -> None:
    memory = TrajectoryMemory(max_chars=0)
    memory.add("attempt", "anything")
    assert memory.render() == ""
