"""`import tether`: the user's API by name, and nothing loaded until a name is used."""

from __future__ import annotations

import subprocess
import sys

CODE = r"""
import sys
import tether
before = sorted(m for m in sys.modules if m.startswith(("pydantic", "numpy", "tether.")))
run = tether.run
after = {m for m in sys.modules if m.startswith("tether.")}
print(before)
print(run.__module__, "tether.runs.api" in after, "tether.systems.pages" in after)
"""


def test_import_tether_loads_nothing_until_a_name_is_used() -> None:
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True,
                          check=True)
    before, used = done.stdout.splitlines()
    # the root's own small modules only: no pydantic, numpy or package behind a name
    assert before == "['tether._aliases', 'tether.lazy', 'tether.version']"
    assert used == "tether.runs.api True False"  # one name loads its package, not the rest
