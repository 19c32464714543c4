"""What `quire docs upload PATH…` picks up: files, folders, globs; hidden files left out;
arguments that name nothing and repeated file names reported."""

from __future__ import annotations

from pathlib import Path

from quire.client.cli.upload import plan
from quire.client.cli.upload_files import find


def make(root: Path) -> None:
    (root / "a").mkdir()
    (root / "a" / "one.md").write_text("1")
    (root / "a" / ".git").mkdir()
    (root / "a" / ".git" / "config").write_text("x")
    (root / "a" / "deep").mkdir()
    (root / "a" / "deep" / "two.txt").write_text("2")
    (root / "b.txt").write_text("3")
    (root / "c").mkdir()
    (root / "c" / "two.txt").write_text("4")


def test_folders_globs_and_files_each_once(tmp_path: Path) -> None:
    make(tmp_path)
    found = find([str(tmp_path / "a"), str(tmp_path / "*.txt"), str(tmp_path / "a" / "one.md")])
    names = [p.relative_to(tmp_path).as_posix() for p in found.files]
    assert names == ["a/deep/two.txt", "a/one.md", "b.txt"]
    assert found.missing == []


def test_arguments_naming_nothing_are_reported(tmp_path: Path) -> None:
    found = find([str(tmp_path / "absent.pdf"), str(tmp_path / "*.docx")])
    assert [reason for _, reason in found.missing] == ["no such file or folder", "matches no file"]


def test_a_repeated_file_name_fails_the_second_file(tmp_path: Path) -> None:
    make(tmp_path)
    items = plan(find([str(tmp_path / "a"), str(tmp_path / "c")]).files)
    assert [(i.name, i.action) for i in items] == [
        ("two.txt", ""),
        ("one.md", ""),
        ("two.txt", "failed"),
    ]
    assert "same name" in items[2].reason
