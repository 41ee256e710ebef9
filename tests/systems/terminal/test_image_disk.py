"""An image build writes into a disk quota of its own (default 6 GiB, a task's
task.toml may raise it) and the image store has a ceiling: a build that fills its quota
fails in one line naming it; the store refuses a build that could pass the ceiling."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tests.systems.terminal.harbor_factory import make_tb2_task
from tether.sandbox.quota import is_mounted
from tether.systems.terminal.build_sandbox import ImageBuildError
from tether.systems.terminal.convert import classify_task
from tether.systems.terminal.image_disk import (
    DEFAULT_BUILD_DISK_MB,
    BuildQuota,
    check_store,
    store_bytes,
)

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="a build quota is a mount: root")
IMAGE_ROOT = Path(os.environ.get("TETHER_TEST_IMAGE_DIR", "/var/tmp/tether-images-test"))


@needs_root
def test_a_build_that_fills_its_quota_fails_naming_it(tmp_path: Path) -> None:
    out = tmp_path / "KEY.partial"
    out.mkdir()
    quota = BuildQuota(out, 64)
    try:
        assert is_mounted(out)
        fill = subprocess.run(["dd", "if=/dev/zero", f"of={out}/fill.bin", "bs=1M",
                               "count=200"], capture_output=True)
        assert fill.returncode != 0 and quota.full()
        err = quota.failed(ImageBuildError("RUN head -c 3G /dev/zero failed (exit 1)"))
        assert "the build filled its disk quota of 64 MB: RUN head -c 3G" in str(err)
        assert "build_disk_mb" in (err.hint or "")
    finally:
        quota.close()
    assert not is_mounted(out)


@needs_root
def test_the_image_is_copied_out_whole(tmp_path: Path) -> None:
    out = tmp_path / "KEY.partial"
    out.mkdir()
    quota = BuildQuota(out, 64)
    try:
        (out / "rootfs" / "usr" / "bin").mkdir(parents=True)
        tool = out / "rootfs" / "usr" / "bin" / "su"
        tool.write_bytes(b"\x7fELF")
        os.chown(tool, 0, 0)
        tool.chmod(0o4755)
        os.link(tool, out / "rootfs" / "usr" / "bin" / "su2")
        (out / "rootfs" / "link").symlink_to("usr/bin/su")
        os.chown(out / "rootfs" / "usr", 1234, 1234)
        assert not quota.failed(ImageBuildError("x")).hint  # not full: the error as it was
        size = quota.copy_out(tmp_path / "KEY.done")
    finally:
        quota.close()
    done = tmp_path / "KEY.done" / "rootfs"
    st = (done / "usr" / "bin" / "su").stat()
    assert stat.S_IMODE(st.st_mode) == 0o4755 and st.st_nlink == 2
    assert os.readlink(done / "link") == "usr/bin/su"
    assert (done / "usr").stat().st_uid == 1234 and size > 0


def test_the_store_refuses_a_build_past_its_ceiling(tmp_path: Path, monkeypatch) -> None:
    images = tmp_path / "images"
    for key, size in (("a", 3 * 2**30), ("b", 2**30)):
        (images / key).mkdir(parents=True)
        (images / key / "image.json").write_text(json.dumps({"key": key, "bytes": size}))
    assert store_bytes(images) == 4 * 2**30
    monkeypatch.setenv("TETHER_IMAGE_STORE_GB", "10")
    check_store(images, 4096)  # 4 + 4 GB: under 10
    with pytest.raises(ImageBuildError, match=r"holds 4.0 GB of its 10 GB ceiling; a build "
                       r"of up to 8.0 GB more could pass it: remove images"):
        check_store(images, 8192)


def test_a_task_sets_its_build_quota_in_task_toml(tmp_path: Path) -> None:
    default = classify_task(make_tb2_task(tmp_path / "a"))
    assert default.build_disk_mb == DEFAULT_BUILD_DISK_MB >= 4096
    big = classify_task(make_tb2_task(tmp_path / "b",
                                      toml="[environment]\nbuild_disk_mb = 12000\n"))
    assert big.build_disk_mb == 12000 and big.convertible
    bad = classify_task(make_tb2_task(tmp_path / "c",
                                      toml="[environment]\nbuild_disk_mb = -5\n"))
    assert "build_disk_mb" in bad.reason() and not bad.convertible


@pytest.mark.slow
@needs_root
@pytest.mark.skipif(shutil.which("mmdebstrap") is None, reason="mmdebstrap not installed")
def test_a_real_build_filling_its_quota_fails_and_leaves_nothing(tmp_path: Path) -> None:
    from tether.systems.terminal.dockerfile import Step
    from tether.systems.terminal.images import ImageBuilder, ImageSpec, context_hash

    context = tmp_path / "ctx"
    context.mkdir()
    steps = (Step("run", ("head -c 700M /dev/zero > /opt/fill.bin",)),)
    spec = ImageSpec(suite="bookworm", packages=("bash",), steps=steps,
                     context_hash=context_hash(context, steps), verifier_pins=())
    builder = ImageBuilder(IMAGE_ROOT)
    with pytest.raises(ImageBuildError, match="the build filled its disk quota of 512 MB"):
        builder.build(spec, context, disk_mb=512)
    assert builder.cached(spec) is None
    left = [p for p in (IMAGE_ROOT / "images").glob(f"{spec.key}*")]
    assert left == []
