"""`tether compile` starts the page helper before the compiler loads, exactly when the
compile will show its student pages drawn there (settings PAGE_MODULES)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tether.systems.compile.settings as settings
from tether.systems.compile.cli import compile as compile_cli

REMOTE = "openai-compatible/qwen@http://127.0.0.1:9/v1"
SCRIPTED = "scripted:tether.testing.scripted_teacher:student"


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The modules each helper start asked for (no helper is started)."""
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(settings.page_worker, "start", lambda warm=(): calls.append(tuple(warm)))
    return calls


def test_a_docs_compile_at_a_remote_student_starts_it_with_the_drawing_module(started) -> None:
    compile_cli._start_page_helper(None, {"setting": "docs", "student": REMOTE})
    assert started == [("tether.systems.compile.settings.docs_render",)]


@pytest.mark.parametrize("fields", [
    {"setting": "docs", "student": SCRIPTED},                        # only the model can tell
    {"setting": "docs", "student": REMOTE, "modality": "text"},      # shown no page
    {"setting": "shapes", "student": REMOTE},                        # draws in place
    {"setting": "jsonl:rows.jsonl", "student": REMOTE},
    {"setting": "docs"},                                             # no student yet
    {"student": REMOTE},
    {"setting": "docs", "student": REMOTE, "modality": 3},           # the loader's to refuse
])
def test_no_helper_where_the_compile_would_draw_no_page_there(started, fields) -> None:
    compile_cli._start_page_helper(None, fields)
    assert started == []


def test_a_config_file_is_read_and_the_flags_win(started, tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text(f'[compile]\nsetting = "docs"\nstudent = "{REMOTE}"\nmodality = "image"\n')
    compile_cli._start_page_helper(toml, {})
    compile_cli._start_page_helper(toml, {"setting": "shapes"})
    flat = tmp_path / "c.json"
    flat.write_text(f'{{"setting": "docs", "student": "{REMOTE}"}}')
    compile_cli._start_page_helper(flat, {})
    assert started == [("tether.systems.compile.settings.docs_render",)] * 2


@pytest.mark.parametrize("text", ["setting = ", "[compile]\nsetting = 1\n", "\xff\xfe"])
def test_a_config_it_cannot_read_starts_nothing_and_raises_nothing(started, tmp_path,
                                                                  text) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(text.encode("latin-1"))
    compile_cli._start_page_helper(path, {})
    compile_cli._start_page_helper(tmp_path / "missing.toml", {})
    assert started == []


def test_the_docs_pages_drawing_module_is_the_one_started() -> None:
    from tether.systems.compile.settings.docs_render import render_png

    assert render_png.__module__ in settings.PAGE_MODULES["docs"]


def test_a_fifo_or_a_file_nested_too_deep_is_left_to_the_loader(started, tmp_path) -> None:
    """Read with the loader's own readers: a FIFO is refused, not waited on."""
    import os

    fifo = tmp_path / "c.toml"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    deep_json = tmp_path / "deep.json"
    deep_json.write_text("[" * 5000 + "]" * 5000)
    for path in (fifo, deep, deep_json):
        compile_cli._start_page_helper(path, {"setting": "docs", "student": REMOTE})
    assert started == []
