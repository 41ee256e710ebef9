"""Snapshots of /app tell which files an attempt added, modified or deleted."""

from __future__ import annotations

from pathlib import Path

from tether.systems.terminal.snapshot import changed_files, snapshot_tree


def test_snapshots_tell_added_modified_and_deleted_files(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("same")
    (tmp_path / "edit.txt").write_text("old")
    (tmp_path / "gone.txt").write_text("x")
    before = snapshot_tree(tmp_path)
    (tmp_path / "edit.txt").write_text("new")
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "new.txt").write_text("n")
    assert changed_files(before, snapshot_tree(tmp_path)) == [
        "modified /app/edit.txt", "deleted /app/gone.txt", "added /app/sub/new.txt"]
    assert changed_files(before, before) == []
    assert snapshot_tree(tmp_path / "missing") == {}
