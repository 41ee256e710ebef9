"""Values that the commands' options show in `--help` (choices, defaults), written out here
so that a command's help imports none of the packages that define them: `tether run
--help` need not load the models, nor `tether measure --help` the geometry instrument.

Each one mirrors a constant of its package; tests/cli/test_choices.py checks every pair
agrees, so a value added there and not here fails a test rather than drifting.
"""

from __future__ import annotations

import os
from pathlib import Path

#: tether.sandbox.BACKENDS
SANDBOX_BACKENDS = ("bwrap", "subprocess")
#: tether.sandbox.DEFAULT_DISK_MB
DEFAULT_DISK_MB = 1024
#: tether.models.CACHE_MODES
CACHE_MODES = ("off", "read", "write", "readwrite")
#: tether.models.DEFAULT_MODEL
DEFAULT_MODEL = "local/smollm2-135m"
#: tether.runs.export.FORMATS
EXPORT_FORMATS = ("chat-jsonl", "preference")
#: tether.systems.compile.COMPARATORS
COMPARATORS = ("h0", "oneshot", "human_recipe", "student_routed", "cot_vote")
#: the names of tether.runs.judge.BUNDLED
JUDGE_RUBRICS = ("terminal-behaviour",)
#: tether.runs.judge.DEFAULT_REPEATS and DEFAULT_TEMPERATURE
JUDGE_REPEATS = 2
JUDGE_TEMPERATURE = 0.7
#: tether.systems.pages.geometry.profiles.MODALITIES
GEOMETRY_MODALITIES = ("figure", "slide", "web", "animation")
#: the names of tether.systems.pages.geometry.profiles.PROFILES
GEOMETRY_PROFILES = ("default", "reference")
#: tether.systems.terminal.images.DEFAULT_IMAGE_DIR
DEFAULT_IMAGE_DIR = Path(os.environ.get("TETHER_IMAGE_DIR", "/var/tmp/tether-images"))
