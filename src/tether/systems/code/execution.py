"""`execution`: run a candidate program against a task's checks inside the sandbox.

Assert format (the interaction-scaling format): every top-level check (an assert, a
loop around asserts, a call of a helper with asserts) runs on its own so the observation
lists every failing check (line, message, and for a comparison the evaluated left and
right operands); score = checks passed / (checks + setup statements that raised). `passed` needs
all checks passing, proof that the runner completed (see _check_runner.py), and the
study's whole-script verdict (program + "\\n" + checks exits 0). pytest format: the
program is staged as solution.py and the task's test files run under pytest.

Options: `checks=hidden|visible` (which of the task's checks), `memory_mb`,
`whole_script=auto|always` (auto runs the whole script only when every check passed,
since only then can it change the verdict), `check_timeout_s` (10; a task's own
`check_timeout_s` wins): a check running longer is cut off so the others still run. A
cut-off check is only slow if the whole script still finishes within the task's limit
(it then counts as passed, marked `slow`); otherwise it is a `check_timeout` defect.
The verdict is thus the study's whole-script verdict either way.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar, Literal

from pydantic import Field

from tether import params
from tether.core import Artifact, Defect, Observation, Task
from tether.errors import ConfigError
from tether.instruments import InstrumentEnv, register_instrument
from tether.sandbox import WarmPool
from tether.systems.code.pytest_runner import observe_pytest
from tether.systems.code.sandboxed_python import STUDY_TIMEOUT_S, run_check_runner, sandbox_for

VERSION = "1"
_OUTCOME_TEXT = {
    "syntax_error": "the program does not parse",
    "import_error": "the program failed to import a module",
    "program_error": "the program raised an exception before any check ran",
    "program_exit": "the program exited (SystemExit) before any check ran",
    "timeout": "the run exceeded its time limit",
    "crashed": "the program crashed (killed by a signal)",
    "exited_early": "the process exited before all checks ran",
    "too_many_hung_checks": "several checks ran past the per-check limit; the rest did not run",
    "no_proof": "the check runner did not finish (no proof that the checks ran)",
}
#: item statuses that fail: a check's assert, an exception, a cut-off that was not slow
_FAILED = ("failed", "error", "timeout")


@register_instrument("execution")
class ExecutionInstrument:
    name: ClassVar[str] = "execution"
    version: ClassVar[str] = VERSION
    grounded: ClassVar[bool] = True

    class Params(params.Params):
        checks: Literal["hidden", "visible"] = Field(
            "hidden", description="the task's hidden checks, or only those the prompt shows")
        memory_mb: params.Count = Field(1024, description="memory cap of the sandboxed "
                                                          "program")
        whole_script: Literal["auto", "always"] = Field(
            "auto", description="run the program as a script: for script tasks (auto), "
                                "or always")
        check_timeout_s: params.Seconds = Field(10.0, description="time limit of one check")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    @staticmethod
    def warm_up(env: InstrumentEnv, concurrency: int) -> None:
        """Start `concurrency` warm sandboxes (bwrap) while a run's first model calls are
        out, so that its first checks do not each wait for one to start."""
        runner = sandbox_for(env.sandbox)
        if isinstance(runner, WarmPool):
            runner.prestart(concurrency)

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        p = self.params
        key = "checks" if p.checks == "hidden" else "visible_checks"
        checks = task.data.get(key)
        if not checks:
            raise ConfigError(f"task {task.key} has no {key!r} for the execution instrument")
        timeout_s = float(task.data.get("timeout_s", STUDY_TIMEOUT_S))
        start = time.monotonic()
        if task.data.get("check_format", "assert") == "pytest":
            obs = observe_pytest(artifact.text, checks, sandbox=env.sandbox,
                                 timeout_s=timeout_s, memory_mb=p.memory_mb)
            obs = obs.model_copy(update={"instrument": self.name, "version": self.version})
        else:
            raw = run_check_runner(artifact.text, str(checks), sandbox=env.sandbox,
                                   timeout_s=timeout_s, memory_mb=p.memory_mb,
                                   whole_script=p.whole_script,
                                   check_timeout_s=float(task.data.get(
                                       "check_timeout_s", p.check_timeout_s)))
            obs = observation_from_runner(raw, self.name, self.version)
        obs.raw["checks"] = p.checks
        return obs.model_copy(update={"duration_s": time.monotonic() - start})


def observation_from_runner(raw: dict[str, Any], name: str = "execution",
                            version: str = VERSION) -> Observation:
    """Turn the runner's verified results into score, passed and defects."""
    outcome = raw.get("outcome", "no_proof")
    if outcome == "checks_error":
        raise ConfigError(f"the task's checks do not parse: {raw.get('message')}")
    whole = raw.get("whole_script") or {}
    items = [_settle_slow(it, bool(whole.get("passed"))) for it in raw.get("items", [])]
    raw = dict(raw, items=items)
    checks = [it for it in items if it.get("kind") == "check"]
    n_passed = sum(it.get("status") == "passed" for it in checks)
    all_items_ok = bool(items) and all(it.get("status") == "passed" for it in items)
    passed = bool(raw.get("proof")) and outcome == "completed" and all_items_ok \
        and bool(whole.get("passed"))
    # A setup statement that raised (a print of a crashing call, say) counts as a failed
    # item too, so the score is 1.0 only when every statement of the checks ran cleanly.
    n_failed_setup = sum(it.get("kind") == "setup" and it.get("status") in _FAILED
                         for it in items)
    if checks or n_failed_setup:
        score = n_passed / (len(checks) + n_failed_setup)
    else:
        score = 1.0 if passed else 0.0
    defects = _outcome_defects(raw, outcome, items)
    defects += [_item_defect(it) for it in items if it.get("status") in _FAILED]
    if outcome == "completed" and all_items_ok and whole and not whole.get("passed"):
        defects.append(Defect(
            kind="whole_script_failed",
            message="every check passed on its own, but program + checks run as one script "
                    f"did not exit 0 (exit {whole.get('exit_code')}, "
                    f"signal {whole.get('signal')}, timed out {whole.get('timed_out')})",
            evidence={k: whole.get(k) for k in ("exit_code", "signal", "timed_out")}))
    raw = dict(raw, n_checks=len(checks), n_passed=n_passed)
    return Observation(instrument=name, version=version, grounded=True, score=score,
                       passed=passed, defects=defects, raw=raw)


def _outcome_defects(raw: dict[str, Any], outcome: str, items: list[dict]) -> list[Defect]:
    if outcome == "completed":
        return []
    phase = raw.get("phase") or {}
    program = phase.get("program") or {}
    message = _OUTCOME_TEXT.get(outcome, outcome)
    evidence: dict[str, Any] = {}
    location = None
    if outcome == "syntax_error":
        message += f": {raw.get('message')}"
        location = f"line {raw['line']}" if raw.get("line") else None
    elif outcome in ("program_error", "program_exit", "import_error"):
        message += f": {program.get('message')}"
        location = f"line {program['line']}" if program.get("line") else None
        evidence["traceback"] = program.get("traceback", "")
    elif outcome in ("timeout", "crashed", "exited_early"):
        index = phase.get("in_progress")
        if index is not None and 0 <= index < len(items):
            location = f"line {items[index]['line']}"
            evidence["source"] = items[index].get("source", "")
        evidence.update({k: phase.get(k) for k in ("signal", "exit_code") if k in phase})
    elif outcome == "no_proof":
        evidence = {"returncode": raw.get("returncode"), "killed_reason": raw.get("killed_reason")}
    evidence["stderr_tail"] = raw.get("stderr_tail", "")[-600:]
    return [Defect(kind=outcome, message=message, location=location, evidence=evidence)]


def _settle_slow(item: dict[str, Any], whole_passed: bool) -> dict[str, Any]:
    """A check cut off at the per-check limit passed after all if the whole script ran to
    exit 0 within the task's limit (it was slow, not hanging)."""
    if item.get("status") == "timeout" and whole_passed:
        return dict(item, status="passed", slow=True)
    return item


def _item_defect(item: dict[str, Any]) -> Defect:
    source = item.get("source", "")
    first = source.splitlines()[0] if source else ""
    line = item.get("line")
    if item.get("status") == "timeout":
        return Defect(kind="check_timeout", location=f"line {line}",
                      message=f"`{first}` {item.get('message', 'timed out')} (an infinite loop "
                              "or a very slow path in the program?)",
                      evidence={"source": source})
    if item.get("kind") == "setup":
        return Defect(kind="setup_error", message=f"setup statement raised {item.get('message')}",
                      location=f"line {line}", evidence={"source": source})
    evidence: dict[str, Any] = {"source": source}
    if "left" in item:
        evidence.update(expected=item["right"], actual=item["left"], op=item.get("op"))
        message = (f"`{first}` failed: left side is {item['left']}, right side is "
                   f"{item['right']} (expected left {item.get('op')} right)")
    elif item.get("status") == "error":
        evidence["error"] = item.get("message")
        message = f"`{first}` raised {item.get('message')}"
    else:
        message = f"`{first}` failed"
    if item.get("message") and item.get("status") == "failed":
        message += f": {item['message']}"
    at = item.get("at_line", line)  # the inner assert that failed (in a loop or helper)
    return Defect(kind="failed_check", message=message, location=f"line {at}", evidence=evidence)
