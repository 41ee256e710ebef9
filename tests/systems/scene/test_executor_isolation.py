"""The scene worker against hostile programs, on real bpy in the real bwrap sandbox: the
host never acts on a path a program chose, and no execution sees or forges another's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("bpy")

from tether.cli.hub import main  # noqa: E402
from tether.systems.scene.executor import RenderSettings, SceneExecutor  # noqa: E402

CUBE_X = 'bpy.data.objects["Cube"].location'
SECRET = b"host secret, root only\n"


@pytest.fixture(scope="module")
def ex(bwrap) -> Iterator[SceneExecutor]:
    with SceneExecutor(sandbox=bwrap, timeout_s=60) as executor:
        yield executor


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "x" / "victim"
    path.parent.mkdir()
    path.write_bytes(SECRET)
    path.chmod(0o600)
    return path


# --- the host never acts on a path the program chose ---------------------------------


def test_a_render_name_rewritten_in_the_request_reads_no_host_file(tmp_path, victim) -> None:
    prog = tmp_path / "p.py"
    prog.write_text("import sys\n"
                    "r = sys._getframe(1).f_locals['request']\n"
                    f"r['render']['name'] = {str(victim)!r}\n")
    out = tmp_path / "o.png"
    result = CliRunner().invoke(main, ["scene", "render", str(prog), "--out", str(out),
                                       "--size", "16", "--samples", "1"])
    assert result.exit_code == 0, result.output
    assert victim.read_bytes() == SECRET  # neither read nor deleted
    assert out.read_bytes()[:4] == b"\x89PNG" and SECRET not in out.read_bytes()


def test_a_render_path_put_in_the_reply_is_refused(tmp_path, victim) -> None:
    prog = tmp_path / "p.py"
    prog.write_text("import sys\n"
                    f"sys._getframe(1).f_locals['out']['render'] = {str(victim)!r}\n")
    out = tmp_path / "o.png"
    result = CliRunner().invoke(main, ["scene", "render", str(prog), "--out", str(out),
                                       "--size", "16", "--samples", "1"])
    assert result.exit_code == 1 and "refused the worker's reply" in result.output
    assert victim.read_bytes() == SECRET and not out.exists()


def test_a_saved_path_put_in_the_reply_moves_no_host_file(tmp_path, victim) -> None:
    prog = tmp_path / "p.py"
    prog.write_text("import sys\n"
                    f"sys._getframe(1).f_locals['out']['saved'] = {str(victim)!r}\n")
    result = CliRunner().invoke(main, ["scene", "trace", str(prog), "--json"])
    assert result.exit_code == 1, result.output
    assert victim.read_bytes() == SECRET


def test_symlinked_outputs_are_never_followed(bwrap, victim) -> None:
    """A program that leaves the output names as links to a host file and claims it wrote
    them: the host reads neither, and the persistent-mode input it writes next goes into
    a new file, not through a link."""
    link = ("import os, sys\n"
            "out = sys._getframe(1).f_locals['out']\n"
            "for name in ('tether-render.png', 'tether-persist-out.blend', "
            "'tether-persist-in.blend'):\n"
            "    if os.path.lexists(name):\n"
            "        os.unlink(name)\n"
            f"    os.symlink({str(victim)!r}, name)\n"
            "out['rendered'] = out['saved'] = True\n")
    with SceneExecutor(sandbox=bwrap, timeout_s=60, persistent=True) as ex:
        assert ex.execute("import bpy\nbpy.data.objects['Cube'].location.x = 2\n").persisted
        r = ex.execute(link)
        assert not r.ok and r.error["kind"] == "reply" and r.render_png is None
        assert not r.persisted and r.worker_replaced
        after = ex.execute("x = 1\n")  # resumes from the scene kept before the attack
        assert after.ok and after.state["cells"][CUBE_X] == [2.0, 0.0, 0.0]
    assert victim.read_bytes() == SECRET


# --- no execution sees or forges another's ---------------------------------------------


def test_files_in_tmp_and_the_work_dir_do_not_reach_the_next_program(ex) -> None:
    first = ex.execute("open('/tmp/leak', 'w').write('a')\nopen('leak', 'w').write('b')\n"
                       "import os\nos.makedirs('/tmp/d/e')\nos.chmod('/tmp/d', 0)\n")
    assert first.ok
    second = ex.execute("import os\nassert not os.path.exists('/tmp/leak')\n"
                        "assert not os.path.exists('leak') and not os.path.exists('/tmp/d')\n")
    assert second.ok, second.error


def test_a_program_s_background_process_ends_with_its_execution(ex) -> None:
    first = ex.execute("import os, time\n"
                       "if os.fork() == 0:\n"
                       "    os.setsid()\n"
                       "    while True:\n"
                       "        open('/tmp/late', 'a').write('x')\n"
                       "        time.sleep(0.02)\n")
    assert first.ok
    second = ex.execute("import os, time\ntime.sleep(0.3)\n"
                        "assert not os.path.exists('/tmp/late')\n")
    assert second.ok, second.error


def test_a_replaced_capture_forges_no_later_state(ex) -> None:
    forge = ("import sys\n"
             "st = sys.modules['tether_scene_state']\n"
             "real = st.capture\n"
             "def fake(bpy):\n"
             "    s = real(bpy)\n"
             f"    s['cells'][{CUBE_X!r}] = [9.0, 0.0, 0.0]\n"
             "    return s\n"
             "st.capture = fake\n")
    forged = ex.execute(forge)
    assert not forged.ok and forged.error["kind"] == "contaminated"
    assert "tether_scene_state" in forged.contaminated and forged.state is None
    assert forged.events == [] and forged.render_png is None
    assert forged.worker_replaced
    honest = ex.execute("import bpy\nbpy.data.objects['Cube'].location.x = 3\n")
    assert honest.ok and honest.state["cells"][CUBE_X] == [3.0, 0.0, 0.0]


def test_replaced_reset_and_changes_globals_are_detected(ex) -> None:
    """The program reaches the worker's globals through its caller's frame and disables
    the reset and the contamination check: detected from identities taken before it ran,
    and the next program still starts from the base scene."""
    tamper = ("import bpy, sys\n"
              "g = sys._getframe(1).f_globals\n"
              "g['_reset'] = lambda *a, **k: None\n"
              "g['_changes'] = lambda before, after: []\n"
              "g['_fingerprint'].__code__ = (lambda space: {}).__code__\n"
              "bpy.data.objects['Cube'].location.x = 5\n")
    r = ex.execute(tamper)
    assert not r.ok and r.error["kind"] == "contaminated" and "worker" in r.contaminated
    assert r.state is None and r.worker_replaced
    after = ex.execute("x = 1\n")
    assert after.ok and after.state["cells"][CUBE_X] == [0.0, 0.0, 0.0]


def test_a_render_after_a_contaminating_program_is_clean_and_cached_clean(tmp_path) -> None:
    """The goal-render cache: a program that disables the reset and moves the cube, then
    the goal rendered on the same warm executor; the cached render equals a clean one."""
    from tether.systems.scene.scenes import TaskScenes
    from tether.systems.scene.tasks import bundled_tasks_dir, load_task

    task = load_task(bundled_tasks_dir() / "placement_box_back")
    settings = RenderSettings(size=16, samples=1)
    poison = ("import bpy, sys\n"
              "sys._getframe(1).f_globals['_reset'] = lambda *a, **k: None\n"
              "for o in bpy.data.objects:\n"
              "    o.location.z += 3\n")
    with TaskScenes(tmp_path / "cache") as scenes:
        bad = scenes.run(task, poison)
        assert not bad.ok and bad.error["kind"] == "contaminated"
        png, execution = scenes.render(task, task.goal, settings)
        assert execution is not None and execution.ok and png is not None
    with TaskScenes(tmp_path / "clean") as clean:
        reference, _ = clean.render(task, task.goal, settings)
    assert png == reference


def test_a_huge_allocation_is_a_memory_failure_that_names_the_limit(ex) -> None:
    r = ex.execute("x = bytearray(30 * 2**30)\n")
    assert not r.ok and r.error["kind"] == "memory", r.error
    assert f"{ex.limits.memory_mb} MB" in r.error["message"]
    assert ex.execute("import bpy\nbpy.data.objects['Cube'].location.x = 1\n").ok
