"""Suite specs: bundled names, registered formats and families, errors with the forms."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tether.core.task import Task
from tether.errors import ConfigError
from tether.suites import (
    format_names,
    load_suite,
    register_format,
    register_suite,
    registry,
    suite_names,
)


def test_bundled_code_suite_is_registered() -> None:
    assert "code" in suite_names()
    assert "interaction-scaling/code" in format_names()


def test_unknown_spec_lists_the_known_forms() -> None:
    with pytest.raises(ConfigError) as err:
        load_suite("no-such-suite")
    assert "'no-such-suite'" in str(err.value)
    hint = err.value.hint or ""
    assert "interaction-scaling:PATH" in hint and "code" in hint and "tether" in hint


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="suite path not found"):
        load_suite(f"tether:{tmp_path / 'absent.json'}")
    with pytest.raises(ConfigError, match="not a suite file"):
        load_suite(f"tether:{tmp_path}")
    with pytest.raises(ConfigError, match="names no file"):
        load_suite("interaction-scaling:")


def _task(suite: str) -> Task:
    return Task(id="x", suite=suite, prompt="p", metric="scripted_check")


def test_registered_suites_and_formats_are_dispatched(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # what this test registers goes into copies of the two registries' entries
    monkeypatch.setattr(registry.SUITES, "_entries", registry.SUITES.entries())
    monkeypatch.setattr(registry.SUITE_FORMATS, "_entries", registry.SUITE_FORMATS.entries())
    register_suite("scripted-suite")(lambda: [_task("scripted-suite")])
    register_format("fam/a", lambda p: [_task("a")], sniff=lambda p: p.suffix == ".a")
    register_format("fam/b", sniff=lambda p: p.suffix == ".b")(lambda p: [_task("b")])
    register_format("folder", lambda p: [_task(p.name)])
    folder = tmp_path / "tasks_dir"
    folder.mkdir()
    assert load_suite(f"folder:{folder}")[0].suite == "tasks_dir", "formats may load dirs"
    fa, fb, fc = (tmp_path / "t.a", tmp_path / "t.b", tmp_path / "t.c")
    for f in (fa, fb, fc):
        f.write_text("{}")
    assert load_suite("scripted-suite")[0].suite == "scripted-suite"
    assert load_suite(f"fam:{fa}")[0].suite == "a"
    assert load_suite(f"fam:{fb}")[0].suite == "b"
    assert load_suite(f"fam/a:{fb}")[0].suite == "a", "an exact format name skips sniffing"
    with pytest.raises(ConfigError) as err:
        load_suite(f"fam:{fc}")
    assert "fam/a, fam/b" in (err.value.hint or "")



def test_a_module_missing_a_dependency_is_named_in_the_hint(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = importlib.import_module

    def fake_import(name: str, package: str | None = None):  # noqa: ANN202
        if name == "tether.systems.code.bundled":
            raise ImportError("No module named 'fancylib'")
        return real_import(name, package)

    monkeypatch.setattr(importlib, "import_module", fake_import)
    monkeypatch.setattr(registry, "_UNAVAILABLE", {})
    suites = registry.SUITES.entries()
    suites.pop("code")
    monkeypatch.setattr(registry.SUITES, "_entries", suites)
    for reg in (registry.SUITES, registry.SUITE_FORMATS):  # load again, with the fake import
        monkeypatch.setattr(reg, "_loaded_once", False)
    with pytest.raises(ConfigError) as err:
        load_suite("code")
    assert "bundled: No module named 'fancylib'" in (err.value.hint or "")
    # The other modules still loaded and registered.
    assert "interaction-scaling/code" in format_names()
