"""One real image build: mmdebstrap (Debian bookworm, minbase + bash), a COPY, an ENV,
a RUN, then a command in the sandbox on that image. Marked slow (about a minute the
first time; the base tarball and the image are cached under IMAGE_ROOT afterwards)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tether.systems.terminal.dockerfile import Step
from tether.systems.terminal.images import ImageBuilder, ImageSpec, context_hash

IMAGE_ROOT = Path(os.environ.get("TETHER_TEST_IMAGE_DIR", "/var/tmp/tether-images-test"))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("mmdebstrap") is None,
                       reason="mmdebstrap not installed (scripts/setup.sh installs it)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="image builds run as root"),
]


def test_a_minimal_image_is_built_cached_and_runs_in_the_sandbox(tmp_path, bwrap):
    context = tmp_path / "ctx"
    context.mkdir()
    (context / "hello.txt").write_text("hello from the build context\n")
    steps = (Step("workdir", ("/app",)), Step("copy", ("hello.txt", "/app/hello.txt")),
             Step("env", ("GREETING", "hi")),
             Step("run", ('echo "$GREETING" > /etc/greeting && cat /app/hello.txt',)))
    spec = ImageSpec(suite="bookworm", packages=("bash",), steps=steps,
                     context_hash=context_hash(context, steps), verifier_pins=())
    builder = ImageBuilder(IMAGE_ROOT)
    image = builder.build(spec, context)
    assert builder.cached(spec) == image  # a second import reuses it
    assert (image.app / "hello.txt").read_text() == "hello from the build context\n"
    assert image.env == {"GREETING": "hi"} and image.workdir == "/app"
    work = Path(tempfile.mkdtemp(prefix="tether-image-test-"))
    work.chmod(0o755)
    try:
        with bwrap.session(work, "/app", rootfs=image.rootfs) as s:
            r = s.run("cat /etc/greeting /etc/debian_version; test -e /usr/bin/python3; "
                      "echo python=$?")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines = r.stdout.splitlines()
    assert lines[0] == "hi" and lines[1].startswith("12.")  # bookworm, not the host
    assert lines[2] == "python=1"  # only what the recipe installed is there


def test_run_steps_install_from_the_mirrors_and_a_download_elsewhere_fails_the_build(tmp_path):
    from tether.systems.terminal.images import ImageBuildError

    context = tmp_path / "ctx"
    context.mkdir()
    packages = ("bash", "python3", "ca-certificates")  # python3: the build's forwarder
    apt = (Step("run", ("apt-get update -q && apt-get install -y -q --no-install-recommends jq"
                        " && grep CapEff /proc/self/status > /caps.txt",)),)
    spec = ImageSpec(suite="bookworm", packages=packages, steps=apt,
                     context_hash=context_hash(context, apt), verifier_pins=())
    image = ImageBuilder(IMAGE_ROOT).build(spec, context)
    assert (image.rootfs / "usr" / "bin" / "jq").is_file()  # apt went through the proxy
    assert (image.rootfs / "caps.txt").read_text() == "CapEff:\t0000000000000000\n"
    assert (image.rootfs / "usr" / "bin").stat().st_uid == 0  # root's again after the build
    # a download that no text check would spot, hidden behind `|| true`
    sneaky = (Step("run", ("python3 -c \"import urllib.request as u; u.urlopen('https://'"
                           " + 'example' + '.org/')\" || true",)),)
    spec = ImageSpec(suite="bookworm", packages=packages, steps=sneaky,
                     context_hash=context_hash(context, sneaky), verifier_pins=())
    with pytest.raises(ImageBuildError, match="tried to reach example.org:443, outside the "
                       "package mirrors"):
        ImageBuilder(IMAGE_ROOT).build(spec, context)
