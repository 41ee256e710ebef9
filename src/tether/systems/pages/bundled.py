"""tether's own visual suite (`visual`): twelve tasks over the four modalities.

Written for this project (figures, slides, web pages, animations; three each, easy
to hard), in the interaction-scaling visual format with an explicit `modality`, so
they load through the same code path and prompt style as the study's files.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from tether.core import Task
from tether.errors import ConfigError
from tether.suites import read_json_file, register_suite
from tether.systems.pages.visual_tasks import to_visual_task

SUITE = "visual"


@register_suite(SUITE)
def load_visual_suite() -> list[Task]:
    path = Path(str(resources.files("tether.systems.pages") / "data" / "tasks.json"))
    data = read_json_file(path)
    if not isinstance(data, list):
        raise ConfigError(f"{path}: expected a JSON list of tasks")
    return [to_visual_task(obj, i, path, suite=SUITE) for i, obj in enumerate(data)]
