"""settings/page_worker.py: pages drawn in a helper process, what it cannot do done where
the page is asked for, nothing left running after the process it draws for."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator

import numpy as np
import pytest

from tether.systems.compile.settings import page_worker
from tether.systems.compile.settings.base import ImageMemo
from tether.systems.compile.settings.docs_render import make_spec, render_png


def _spec(seed: int = 0) -> dict:
    return make_spec(np.random.default_rng(seed))


def _drawing_here_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    import tether.systems.compile.settings.docs_render as docs_render

    def no(spec: dict) -> None:
        raise AssertionError("drawn in this process")

    monkeypatch.setattr(docs_render, "render", no)


@pytest.fixture
def own_helper(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A helper of this test's own (the process's one is left as it was)."""
    monkeypatch.setattr(page_worker, "_helper", None)
    monkeypatch.setattr(page_worker, "_unavailable", False)
    yield
    helper = page_worker._helper
    if helper is not None and helper.proc.poll() is None:
        helper.proc.kill()
        helper.proc.wait(10)


def test_a_page_is_drawn_in_the_helper_as_it_is_drawn_here(monkeypatch, own_helper) -> None:
    spec = _spec()
    here = render_png(spec)
    _drawing_here_fails(monkeypatch)  # the helper has its own, unpatched, module
    future = page_worker.submit(render_png, spec)
    assert future is not None and future.result(timeout=120) == here
    assert page_worker._helper is not None and page_worker._helper.proc.pid != os.getpid()


def test_a_drawing_that_fails_in_the_helper_comes_back_as_its_error(own_helper) -> None:
    future = page_worker.submit(render_png, {"kind": "receipt"})  # no fields to draw
    assert future is not None
    with pytest.raises(page_worker.PageHelperError, match="KeyError"):
        future.result(timeout=120)
    later = page_worker.submit(render_png, _spec(1))  # the helper goes on
    assert later is not None and later.result(timeout=120)[:4] == b"\x89PNG"


def test_only_module_level_functions_are_sent() -> None:
    def local(spec: dict) -> bytes:
        return b""

    with pytest.raises(ValueError, match="module-level"):
        page_worker.submit(local, {})


def test_a_helper_that_ends_fails_what_it_had_and_is_not_started_again(own_helper) -> None:
    first = page_worker.submit(render_png, _spec(2))
    assert first is not None and first.result(timeout=120)
    helper = page_worker._helper
    assert helper is not None
    helper.proc.kill()
    helper.proc.wait(10)
    deadline = time.monotonic() + 10
    while helper.alive and time.monotonic() < deadline:  # its reader sees the end
        time.sleep(0.01)
    assert page_worker.submit(render_png, _spec(3)) is None  # drawn where asked, from now
    assert page_worker._helper is helper  # no second helper


def test_a_memo_waits_for_the_helper_drawing_and_draws_nothing_itself(
        monkeypatch, own_helper) -> None:
    spec = _spec(4)
    here = render_png(spec)
    memo = ImageMemo()
    memo.draw_ahead({"docs": spec}, render_png, spec)
    memo.draw_ahead({"docs": spec}, render_png, spec)  # already on its way: once

    def never() -> bytes:
        raise AssertionError("the page was drawn ahead")

    assert memo.get({"docs": spec}, never) == here and memo.draws == 1


def test_without_a_helper_a_page_is_drawn_where_it_is_asked_for(monkeypatch) -> None:
    monkeypatch.setattr(page_worker, "_unavailable", True)
    memo = ImageMemo()
    spec = _spec(5)
    memo.draw_ahead({"docs": spec}, render_png, spec)
    assert memo.get({"docs": spec}, lambda: b"drawn here") == b"drawn here"
    assert memo.draws == 1


def test_a_page_the_helper_could_not_draw_is_drawn_by_its_asker(own_helper) -> None:
    memo = ImageMemo()
    bad = {"kind": "receipt"}
    memo.draw_ahead({"docs": bad}, render_png, bad)
    with pytest.raises(KeyError):  # the asker meets the real error, not the helper's text
        memo.get({"docs": bad}, lambda: render_png(bad))


def test_the_helper_ends_with_the_process_it_draws_for(tmp_path) -> None:
    code = textwrap.dedent("""
        import numpy as np
        from tether.systems.compile.settings import page_worker
        from tether.systems.compile.settings.docs_render import make_spec, render_png
        future = page_worker.submit(render_png, make_spec(np.random.default_rng(0)))
        future.result(timeout=120)
        print(page_worker._helper.proc.pid, flush=True)
        import os
        os._exit(0)  # no exit handlers: the helper must notice on its own
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=180, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[-1])
    deadline = time.monotonic() + 30
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(pid), f"the page helper {pid} outlived its process"


def _running(pid: int) -> bool:
    """Whether `pid` runs (a zombie, ended but not yet reaped by whoever adopted it,
    does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def test_a_started_helper_imports_its_modules_before_its_first_request(
        own_helper, tmp_path, monkeypatch) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "warm_probe.py").write_text(
        f"open({str(marker)!r}, 'w').write('yes')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    page_worker.start(["no_such_module_here", "warm_probe"])  # a bad one is skipped
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert marker.read_text() == "yes"  # no page was asked for
    later = page_worker.submit(render_png, _spec(6))  # the same helper draws
    assert later is not None and later.result(timeout=120)[:4] == b"\x89PNG"
    helper = page_worker._helper
    page_worker.start(["warm_probe"])  # running already: no second helper
    assert page_worker._helper is helper
