"""An attempt on an image runs as root of its namespace over a writable system of its
own: root may change /usr and /etc, the image never changes, the next attempt starts
clean, and the verifier judges the attempt's system (read-only)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sandbox.rootfs_factory import make_rootfs
from tests.systems.terminal.harbor_factory import make_tb2_task
from tether.systems.terminal import system_layer
from tether.systems.terminal.environment import TerminalEnvironment
from tether.systems.terminal.harbor import load_harbor_task
from tether.systems.terminal.imported import ImageRef, write_imported_task

needs_layer = pytest.mark.skipif(not system_layer.available(),
                                 reason="overlay mounts need root on the host")
# bash builtins and cat only: the test image has no python
VERIFIER = ('#!/bin/bash\nif [ "$(cat /usr/share/tether-made 2>/dev/null)" = "installed" ]; '
            'then echo 1 > /logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt;'
            ' fi\n')


@pytest.fixture()
def where() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="tether-layer-test-"))
    d.chmod(0o755)  # the sandbox user must reach the image
    yield d
    shutil.rmtree(d, ignore_errors=True)


def imported(where: Path, solve: str) -> Path:
    src = make_tb2_task(where / "src", "layer", solve=solve)
    image = where / "image"
    if not image.exists():
        make_rootfs(image / "rootfs")
        (image / "rootfs" / "usr" / "share").mkdir(exist_ok=True)
        (image / "rootfs" / "etc" / "apt" / "apt.conf.d").mkdir(parents=True)
        (image / "app").mkdir()
    ref = ImageRef(key="k1", image_dir=image, suite="trixie", base="debian:13", env={},
                   workdir="/app")
    return write_imported_task(src, where / "out", ref, VERIFIER, image / "app")


@needs_layer
def test_root_changes_its_own_system_and_the_image_never_changes(where, bwrap):
    task = load_harbor_task(imported(where, "echo installed > /usr/share/tether-made\n"))
    image = where / "image" / "rootfs"
    with TerminalEnvironment.for_task(task, sandbox=bwrap) as env:
        r = env.execute("id -u; echo installed > /usr/share/tether-made; "
                        "echo x > /etc/added && cat /usr/share/tether-made")
        assert r.output == "0\ninstalled\n", r.output
        assert env.record() == {"as_root": True, "writable_system": True,
                                "registry": {"enabled": False}}
        assert env.verify().reward == 1.0  # the verifier sees what the attempt installed
        assert env.system_dir is not None and env.system_dir != image
    assert not (image / "usr" / "share" / "tether-made").exists()
    assert not (image / "etc" / "added").exists()
    assert not env.root.exists() and not os.path.ismount(env.root / "layer" / "system")
    with TerminalEnvironment.for_task(task, sandbox=bwrap) as fresh:
        assert fresh.verify().reward == 0.0  # a new attempt starts from the image
        assert fresh.execute("cat /usr/share/tether-made").returncode != 0


@needs_layer
def test_the_oracle_gate_sees_the_solutions_system(where, bwrap):
    from tether.systems.terminal.gates import check_task

    task = load_harbor_task(imported(where, "echo installed > /usr/share/tether-made\n"))
    row = check_task(task, sandbox=bwrap)
    assert (row.oracle_reward, row.null_reward, row.deterministic) == (1.0, 0.0, True)


@needs_layer
def test_the_owned_copy_is_made_once_and_again_for_a_rebuilt_image(where, bwrap):
    imported(where, "true\n")
    rootfs = where / "image" / "rootfs"
    base = system_layer.owned_base(rootfs, bwrap.user)
    assert base == where / "image" / f"rootfs-as-{bwrap.user.uid}"
    assert (base / "usr").stat().st_uid == bwrap.user.uid  # root's, inside the namespace
    assert (rootfs / "usr").stat().st_uid == 0  # the image itself stays root's
    conf = base / system_layer.APT_SANDBOX_FILE
    assert 'APT::Sandbox::User "root";' in conf.read_text()
    marker = base / "usr" / "marker"
    marker.write_text("same copy")
    assert system_layer.owned_base(rootfs, bwrap.user) == base and marker.exists()
    os.utime(rootfs, ns=(1, 1))  # what a rebuild does to the image's rootfs
    assert system_layer.owned_base(rootfs, bwrap.user) == base and not marker.exists()
