"""`compiled_harness`, `bare` and `human_recipe`: a harness deployed as a strategy.

One trial answers one harness-setting item (systems/compile/tasks.py): the harness runtime
builds the observation, runs the hooks in the sandboxed worker and makes the student's
calls through `ctx.generate("student", ...)` (budgeted, recorded). The answer is the
trial's `text` artifact; the task's metric instrument (`harness_answer`) scores it.

    [[strategies]]
    name: ClassVar[str] = "compiled_harness"
    params = {harness = "my_harness.json"}      # a file, or the document inline

- `bare` runs the bare harness of the task's setting (the plain question);
- `human_recipe` runs the setting's bundled recipe (compile/recipes/);
- params of all three: `modality` ("auto" | "text" | "image", see systems/compile/student.py),
  `max_steps` (student calls per item, default 4), `intervention` (one of the five
  decision interventions, systems/compile/interventions.py; none by default), `check` (run the
  admissibility checks once per process before the first item, default true: an
  inadmissible harness fails every trial as an error, it is never scored).

A hook error scores 0 (`meta.status = "hook_error"`, listed in the facts); a sandbox or
student API failure ends the trial as an error (never scored). Every trial records the
harness hash, the student's modality, calls and generated tokens in its facts.
"""

from __future__ import annotations

import atexit
import threading
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from tether import params
from tether.context import TrialContext
from tether.core import Artifact, Facts
from tether.errors import ConfigError, TetherError
from tether.sandbox import get_sandbox
from tether.strategies import StrategyResult, register_strategy
from tether.systems.compile.admissibility import check_harness
from tether.systems.compile.harness import Harness, bare_harness, load_harness
from tether.systems.compile.interventions import intervene
from tether.systems.compile.recipes import recipe
from tether.systems.compile.runtime import MAX_STEPS, HarnessRuntime, HookRunner
from tether.systems.compile.setting import Setting, same_setting
from tether.systems.compile.student import STUDENT_ROLE, StudentSession, resolve_modality
from tether.systems.compile.tasks import item_of

__all__ = ["Bare", "CompiledHarness", "HarnessFacts", "HarnessTrialError", "HumanRecipe"]


class HarnessFacts(Facts):
    """What a harness trial reports (the report reads `harness_hash` and the tokens)."""

    harness_hash: str
    harness_source: str
    setting: str
    item_id: str
    outcome: str  # answered | verdict | abstain | hook_error
    hook_error: str | None = None
    student_modality: str
    student_calls: int = 0
    student_output_tokens: int = 0
    intervention: str | None = None
    #: the hash of the harness as run, where the intervention edited it (persist)
    run_hash: str | None = None
    #: student calls the intervention made itself (a yes/no request, a naming)
    extra_calls: int = 0
    step_limit: bool = False


class HarnessTrialError(TetherError):
    """An infrastructure failure on the item (sandbox or student API): never scored."""


class _LockedHooks:
    """One warm hook worker shared by the trials of a process, one call at a time (the
    hooks get fresh globals per call, so sharing it cannot carry state across items)."""

    def __init__(self, runner: HookRunner) -> None:
        self._runner = runner
        self.defined = runner.defined
        self._lock = threading.Lock()

    def call(self, hook: str, *args: Any) -> Any:
        with self._lock:
            return self._runner.call(hook, *args)

    def close(self) -> None:
        """Left open: the worker outlives the trial (closed at exit)."""


_lock = threading.Lock()
_hooks: dict[tuple[str, str], _LockedHooks] = {}
_admissible: dict[tuple[str, str], list[str]] = {}


def _shared_hooks(harness: Harness, sandbox: str) -> _LockedHooks:
    key = (harness.hash, sandbox)
    with _lock:
        if key not in _hooks:
            _hooks[key] = _LockedHooks(HookRunner(harness, sandbox=get_sandbox(sandbox)))
        return _hooks[key]


@atexit.register
def _close_workers() -> None:
    for hooks in _hooks.values():
        hooks._runner.close()


def _violations(harness: Harness, setting: Setting) -> list[str]:
    """Admissibility violations, checked once per (harness, setting) per process."""
    key = (harness.hash, setting.name)
    with _lock:
        if key in _admissible:
            return _admissible[key]
    report = check_harness(harness.document(), setting)
    found = [f"{v.check}: {v.detail}" for v in report.violations]
    with _lock:
        _admissible[key] = found
    return found


class _RunParams(params.Params):
    modality: Literal["auto", "text", "image"] = Field(
        "auto", description="the student's input: text, image, or auto (image where the "
                            "student accepts images)")
    max_steps: params.Count = Field(MAX_STEPS, description="most student calls per item")
    intervention: Literal["decide", "select", "generate", "integrate", "persist"] | None = (
        Field(None, description="replace one decision of the harness (an ablation)"))
    check: bool = Field(True, description="refuse an inadmissible harness before its "
                                          "first item")


def _check_harness_source(harness: str | dict[str, Any]) -> None:
    # What the constructor would refuse, without loading (the file is read per trial).
    if isinstance(harness, dict):
        try:
            Harness.model_validate(harness)
        except ValueError as exc:
            raise ConfigError(f"inline harness is not tether-harness/1: {exc}") from None
    elif harness not in ("bare", "recipe") and not Path(harness).is_file():
        raise ConfigError(f"harness file not found: {harness}",
                          hint="harness = FILE, an inline document, \"bare\" or \"recipe\"")


class _HarnessParams(_RunParams):
    harness: Annotated[str | dict[str, Any], params.checked(_check_harness_source)] = Field(
        description="a harness file, an inline tether-harness/1 document, \"bare\" or "
                    "\"recipe\"")


class CompiledHarness:
    """A harness on one item per trial (see the module docstring)."""

    name: ClassVar[str] = "compiled_harness"
    roles: ClassVar[tuple[str, ...]] = (STUDENT_ROLE,)
    #: its subclasses (bare, human_recipe) fix the harness, so they declare no `harness`
    Params: ClassVar[type[_RunParams]] = _HarnessParams
    #: the harness a subclass fixes ("bare" or "recipe"); None: the `harness` param's
    fixed_harness: ClassVar[str | None] = None

    def __init__(self, params: _RunParams | None = None) -> None:
        self.params = params if params is not None else self.Params()
        harness = (self.params.harness if isinstance(self.params, _HarnessParams)
                   else self.fixed_harness or "bare")
        self.source = "inline" if isinstance(harness, dict) else str(harness)
        self._fixed = self._load(harness)

    @staticmethod
    def _load(harness: str | dict[str, Any]) -> Harness | None:
        if isinstance(harness, dict):
            try:
                return Harness.model_validate(harness)
            except ValueError as exc:
                raise ConfigError(f"inline harness is not tether-harness/1: {exc}") from None
        if harness in ("bare", "recipe"):
            return None  # depends on the task's setting
        if not Path(harness).is_file():
            raise ConfigError(f"harness file not found: {harness}",
                              hint="harness = FILE, an inline document, \"bare\" or \"recipe\"")
        return load_harness(harness)

    def harness_for(self, setting: str) -> Harness:
        if self._fixed is not None:
            return self._fixed
        return bare_harness(setting) if self.source == "bare" else recipe(setting)

    def run(self, ctx: TrialContext) -> StrategyResult:
        setting, item = item_of(ctx.task)
        harness = self.harness_for(setting.name)
        if not same_setting(harness.setting, setting.name):
            raise ConfigError(f"the harness is for setting {harness.setting!r}, the task "
                              f"{ctx.task.key} is from {setting.name!r}")
        if self.params.check:
            violations = _violations(harness, setting)
            if violations:
                raise ConfigError(f"harness {harness.hash[:12]} is inadmissible on "
                                  f"{setting.name}: {violations[0]}",
                                  hint="tether harness check FILE lists every violation")
        student = StudentSession(ctx, max_tokens=harness.decode.max_tokens,
                                 temperature=harness.decode.temperature,
                                 modality=resolve_modality(ctx, self.params.modality))
        run, policy = harness, None
        intervention = self.params.intervention
        if intervention is not None:
            def image() -> bytes | None:
                return setting.image(item) if student.modality == "image" else None

            run, policy = intervene(intervention, harness, setting, student, image)
        runtime = HarnessRuntime(run, setting, hooks=_shared_hooks(run, ctx.env.sandbox),
                                 max_steps=self.params.max_steps,
                                 student_modality=student.modality)
        outcome = runtime.run_item(item, student, policy)
        if outcome.status == "infra_error":
            raise HarnessTrialError(f"item {item.item_id}: {outcome.error}")
        facts = HarnessFacts(
            harness_hash=harness.hash, harness_source=self.source, setting=setting.name,
            item_id=item.item_id, outcome=outcome.status,
            hook_error=outcome.error if outcome.status == "hook_error" else None,
            intervention=intervention, run_hash=run.hash if run is not harness else None,
            step_limit=outcome.step_limit, extra_calls=len(outcome.extra_calls),
            **student.facts())
        artifact = Artifact(kind="text", text=outcome.answer or "",
                            meta={"status": outcome.status, "harness_hash": harness.hash})
        return StrategyResult(artifact=artifact, facts=facts)


register_strategy("compiled_harness")(CompiledHarness)


class Bare(CompiledHarness):
    """The bare student: the plain question, no resources, no hooks."""

    name: ClassVar[str] = "bare"
    Params = _RunParams
    fixed_harness = "bare"


class HumanRecipe(CompiledHarness):
    """The setting's bundled human recipe (compile/recipes/)."""

    name: ClassVar[str] = "human_recipe"
    Params = _RunParams
    fixed_harness = "recipe"


register_strategy("bare")(Bare)
register_strategy("human_recipe")(HumanRecipe)
