"""The script Playwright starts as Chromium: one feature switch, and no network.

Chromium reads only the last `--disable-features` (and `--enable-features`) on its
command line: a second one replaces the first whole. Playwright puts its own list
first (HttpsUpgrades among them, which would otherwise turn the artifact's http URL
into https), so a feature tether disables itself (browser.py: the spare renderer)
would silently re-enable all of Playwright's. The script merges every occurrence of
each of the two switches into one, in order, then execs Chromium, under `unshare`
when the browser gets a network namespace of its own (netns.py). It runs once per
browser, not per page, and adds no process (exec).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

#: the switches whose occurrences are merged into one
MERGED_SWITCHES = ("--disable-features", "--enable-features")

# POSIX sh: `for arg do` iterates over a copy of the arguments while the loop
# rebuilds "$@" without the feature switches, which are appended once at the end.
_MERGE = r"""disable=""
enable=""
for arg do
  shift
  case "$arg" in
    --disable-features=*) disable="${disable:+$disable,}${arg#--disable-features=}" ;;
    --enable-features=*) enable="${enable:+$enable,}${arg#--enable-features=}" ;;
    *) set -- "$@" "$arg" ;;
  esac
done
if [ -n "$disable" ]; then set -- "$@" "--disable-features=$disable"; fi
if [ -n "$enable" ]; then set -- "$@" "--enable-features=$enable"; fi
"""


def launcher(executable: str, directory: Path, prefix: Sequence[str] = (),
             name: str = "chromium-launcher") -> Path:
    """A script in `directory` that merges the feature switches and execs
    `prefix + executable` with the rest of its arguments."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / name
    command = " ".join(shlex.quote(part) for part in [*prefix, executable])
    script.write_text(f'#!/bin/sh\n{_MERGE}exec {command} "$@"\n')
    script.chmod(0o755)
    return script


def merged_switches(argv: Sequence[str]) -> list[str]:
    """What the script passes on for `argv` (its rule, for tests and diagnostics)."""
    rest = [a for a in argv if not a.startswith(tuple(f"{s}=" for s in MERGED_SWITCHES))]
    for switch in MERGED_SWITCHES:
        values = [a.split("=", 1)[1] for a in argv if a.startswith(f"{switch}=")]
        if values:
            rest.append(f"{switch}={','.join(values)}")
    return rest
