"""A tiny root filesystem for tests: a few host binaries and the libraries they load.

Enough for `bash -c 'cat ...; ls ...'` inside bwrap, small enough to make per test
(a real image is built by tether.systems.terminal.images, which needs mmdebstrap and minutes).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

BINARIES = ("bash", "sh", "cat", "ls", "touch", "echo", "id", "mkdir", "pwd")


def _libraries(binary: str) -> set[str]:
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    return set(re.findall(r"(/\S+\.so[.\d]*)", out))


def make_rootfs(root: Path, marker: str = "tether-test-image") -> Path:
    """root/ with usr/bin, usr/lib*, merged-/usr symlinks and etc/os-release = marker."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "usr" / "bin").mkdir(parents=True)
    for top in ("bin", "sbin", "lib", "lib64"):
        (root / top).symlink_to(f"usr/{top}")
    (root / "usr" / "sbin").mkdir()
    libs: set[str] = set()
    for name in BINARIES:
        path = shutil.which(name)
        assert path is not None, name
        real = Path(path).resolve()
        shutil.copy2(real, root / "usr" / "bin" / name)
        libs |= _libraries(str(real))
    for lib in libs:
        real = Path(lib).resolve()
        rel = Path(lib).relative_to("/")
        if rel.parts[0] in {"lib", "lib64"}:  # /lib64/ld-linux... lives under usr/
            rel = Path("usr", *rel.parts)
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(real, root / rel)
    (root / "etc").mkdir()
    (root / "etc" / "os-release").write_text(f"ID={marker}\n")
    (root / "opt").mkdir()
    (root / "opt" / "only-in-image").write_text("yes\n")
    root.chmod(0o755)
    return root
