"""``python -m colmeia.apps.assistant.turngen <folder>`` (``write_sets``): how a developer
regenerates the shipped conversation sets — one ``<split>/conversations_generated.json`` per
split under the folder given, each byte for byte the file the package ships, and the list of
what was written."""

from __future__ import annotations

from pathlib import Path

from colmeia.apps.assistant.turngen import set_folder
from colmeia.apps.assistant.turngen.files import SET_NAMES, write_sets


def test_write_sets_writes_each_split_as_the_package_ships_it(tmp_path: Path) -> None:
    root = tmp_path / "not" / "there" / "yet"  # folders are made as needed
    written = write_sets(root)
    assert written == [
        root / "dev" / "conversations_generated.json",
        root / "test" / "conversations_generated.json",
        root / "test2" / "conversations_generated.json",
    ]
    for name, split in SET_NAMES.items():
        shipped = set_folder(name) / "conversations_generated.json"
        assert shipped.parent.name == split
        assert (root / split / "conversations_generated.json").read_bytes() == shipped.read_bytes()


def test_writing_again_over_the_same_folder_replaces_the_files(tmp_path: Path) -> None:
    write_sets(tmp_path)
    (tmp_path / "dev" / "conversations_generated.json").write_text("{}", encoding="utf-8")
    write_sets(tmp_path)  # the folders exist already: no error
    shipped = set_folder("generated-dev") / "conversations_generated.json"
    assert (tmp_path / "dev" / "conversations_generated.json").read_bytes() == shipped.read_bytes()
