"""tether: grounded test-time compute.

Wraps a frozen model in harnesses whose feedback and score come from instruments
that observe the artifact itself. The concepts page of the documentation
(docs/concepts.md) names the vocabulary and the invariants.

The user's API, from Python (docs/python.md):

- `run(config, out=None)`: an experiment from a dict in the config schema (or a config
  file) into a run directory; returns its arms (pass rate with its interval, tokens,
  cost) and `paired(a, b)`;
- `measure(page)`: the geometry instrument on one HTML page;
- `run_trial(spec, task, ...)` with `TrialSpec`, `load_suite` (or a `Task` of your own),
  `BudgetSpec` and `InstrumentEnv`: one trial, no run directory;
- `parse_model(spec)` and `GenerateParams`: a model by its spec, called directly.

The names load on first use (tether.lazy), so `import tether` imports none of the
packages behind them. The root sits above every system: it is the one package that may
reach any of them (`measure` is the pages system's), and no package imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether import _aliases
from tether.lazy import exports
from tether.version import __version__ as __version__

if TYPE_CHECKING:
    from tether.core import (
        BudgetSpec as BudgetSpec,
        Task as Task,
        TrialRecord as TrialRecord,
        TrialSpec as TrialSpec,
    )
    from tether.errors import ConfigError as ConfigError, TetherError as TetherError
    from tether.instruments import InstrumentEnv as InstrumentEnv
    from tether.models import GenerateParams as GenerateParams, parse_model as parse_model
    from tether.runs import (
        ArmOutcome as ArmOutcome,
        PairedOutcome as PairedOutcome,
        RunOutcome as RunOutcome,
        run as run,
        run_trial as run_trial,
    )
    from tether.suites import load_suite as load_suite
    from tether.systems.pages import measure as measure

#: each name's package face (a face, never one of its modules: tests/test_public_faces.py)
_HOMES: dict[str, str] = {
    "ArmOutcome": "tether.runs",
    "BudgetSpec": "tether.core",
    "ConfigError": "tether.errors",
    "GenerateParams": "tether.models",
    "InstrumentEnv": "tether.instruments",
    "PairedOutcome": "tether.runs",
    "RunOutcome": "tether.runs",
    "Task": "tether.core",
    "TetherError": "tether.errors",
    "TrialRecord": "tether.core",
    "TrialSpec": "tether.core",
    "load_suite": "tether.suites",
    "measure": "tether.systems.pages",
    "parse_model": "tether.models",
    "run": "tether.runs",
    "run_trial": "tether.runs",
}
__all__ = [
    "ArmOutcome",
    "BudgetSpec",
    "ConfigError",
    "GenerateParams",
    "InstrumentEnv",
    "PairedOutcome",
    "RunOutcome",
    "Task",
    "TetherError",
    "TrialRecord",
    "TrialSpec",
    "load_suite",
    "measure",
    "parse_model",
    "run",
    "run_trial",
]
__getattr__, __dir__ = exports(__name__, _HOMES)

_aliases.install()
