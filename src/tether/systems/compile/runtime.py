"""The harness runtime: one item, from observation to answer.

The host builds the observation from the item and the harness's enabled resources
(never gold), then asks the `route` hook what to do until it gives an answer:

    route(obs, state) -> {"call_student": {"prompt": NAME, "vars": {...}, "image": bool}}
                       | {"done": true} | {"verdict": STR} | {"abstain": true}

Each student call is made by the caller's `student(prompt_text, image_or_None) -> str`
in a fresh context; the host appends {"prompt", "reply"} to state["calls"] and calls
route again, at most `max_steps` student calls per item; `done` ends the item with the
last reply (without it a route could only stop by running out of steps). With no route hook the host
makes one call of the `answer` prompt. `parse(text, item)` turns the last reply into
the answer (default: strip); a verdict skips it. runtime-v1.md (compile/manual/) is
the full contract, written for the teacher.

Hooks run in one long-lived SandboxedWorker per harness, each call in a fork of the
loaded interpreter (fresh globals, and a work dir cleared of what earlier calls wrote:
nothing a call changes reaches the next one) with a fixed hash seed and a deadline
(default 2 s); whatever processes a call leaves behind are killed after it, and the work
dir is a filesystem of HOOK_DISK_MB.
Whatever a hook can cause makes the item a `hook_error`, the harness's fault, scored 0:
it raises, times out, crashes or kills its worker, returns a malformed or oversized
value, writes anything but the worker's own reply on the reply channel, names an
unknown prompt or a missing template field. Only what no hook can cause is an
`infra_error` (recorded, never scored: docs/concepts.md invariant 6): the sandbox failing to
start a worker, the student's API failing. Otherwise a harness could hide its failures
from its own score (docs/concepts.md invariant 8).
A student call its budget refuses (`BudgetExhausted`) is neither: it was never made, and
it passes through `run_item` to the caller, which knows what a stop means (a trial ends
`budget_exhausted`; a compile records the item as a budget stop, never scored).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tether.models import ModelError
from tether.sandbox import Sandbox, SandboxedWorker, SandboxError, WorkerLimits, get_sandbox
from tether.systems.compile.harness import Harness, TemplateError, render_template
from tether.systems.compile.setting import Item, Setting

__all__ = ["DEFAULT_HOOK_DEADLINE_S", "HOOK_DISK_MB", "MAX_HOOK_DEPTH", "MAX_HOOK_REPLY_BYTES",
           "MAX_STEPS", "HarnessRuntime", "HookRunner", "ItemOutcome", "ItemPolicy", "StudentFn",
           "score_outcome"]

MAX_STEPS = 4
DEFAULT_HOOK_DEADLINE_S = 2.0
#: a student call: (rendered prompt, PNG bytes or None) -> reply text
StudentFn = Callable[[str, bytes | None], str]
Status = Literal["answered", "verdict", "abstain", "hook_error", "infra_error"]
Modality = Literal["text", "image"]

#: the longest reply line a hook call may send (a verdict, a parse, a card's lines)
MAX_HOOK_REPLY_BYTES = 256 * 1024
#: the deepest nesting a hook's return value may have (the host walks it)
MAX_HOOK_DEPTH = 32
#: the disk a hook call may fill in its worker's work dir (cleared before the next call)
HOOK_DISK_MB = 32
_HOOK_LIMITS = WorkerLimits(memory_mb=256, max_procs=16, max_file_mb=1,
                            call_timeout_s=DEFAULT_HOOK_DEADLINE_S, start_timeout_s=60.0,
                            max_reply_bytes=MAX_HOOK_REPLY_BYTES, disk_mb=HOOK_DISK_MB)


class ItemPolicy(Protocol):
    """Host-side changes to how one item runs: the decision interventions
    (systems/compile/interventions.py) are policies applied to a fixed harness. The runtime
    without a policy is the harness as written.

    - `observation(obs)`: the observation the hooks and prompts see (may ask the student
      through the policy's own calls, e.g. a yes/no request);
    - `before_call(prompt, vars, obs)`: `(reply, vars)`; a reply not None answers that
      call on the host (no student call), else the call is made with the vars returned;
    - `verdict(text, obs)`: None keeps the verdict, else a call_student body made instead;
    - `raw_cards`: skip `select_lines` (the student sees the raw card);
    - `extra_calls`: the student calls the policy made itself, for the outcome.
    """

    raw_cards: bool
    extra_calls: list[dict[str, str]]

    def observation(self, obs: dict[str, Any]) -> dict[str, Any]: ...

    def before_call(self, prompt: str, vars_: dict[str, Any],
                    obs: dict[str, Any]) -> tuple[str | None, dict[str, Any]]: ...

    def verdict(self, text: str, obs: dict[str, Any]) -> dict[str, Any] | None: ...


class _HookFault(Exception):
    """The harness's fault on this item (becomes a hook_error)."""


class _InfraFault(Exception):
    """Not the harness's fault (becomes an infra_error, never scored)."""


@dataclass
class ItemOutcome:
    """What the runtime did on one item.

    `answer` is None for hook and infrastructure errors. `hook_trace` lists every hook
    call's result in order ({"hook", "value"}); the determinism check compares it.
    `host_s` is the item's wall time minus its student calls (the hook overhead).
    """

    item_id: str
    status: Status
    answer: str | None
    calls: list[dict[str, str]] = field(default_factory=list)
    hook_trace: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    step_limit: bool = False
    student_modality: Modality = "text"
    host_s: float = 0.0
    #: student calls an intervention policy made itself (a yes/no request, a naming)
    extra_calls: list[dict[str, str]] = field(default_factory=list)

    @property
    def scored(self) -> bool:
        return self.status != "infra_error"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def score_outcome(setting: Setting, item: Item, outcome: ItemOutcome) -> float | None:
    """The metric of the outcome: None for an infra_error, 0 for a hook_error."""
    if not outcome.scored:
        return None
    if outcome.status == "hook_error":
        return 0.0
    return setting.score(outcome.answer or "", item)


class Hooks(Protocol):
    """What a runtime needs of its hooks: a HookRunner, or one shared across trials."""

    defined: frozenset[str]

    def call(self, hook: str, *args: Any) -> Any: ...

    def close(self) -> None: ...


class HookRunner:
    """A harness's hooks in one sandboxed worker (fresh globals per call)."""

    def __init__(self, harness: Harness, *, sandbox: Sandbox | None = None,
                 deadline_s: float = DEFAULT_HOOK_DEADLINE_S) -> None:
        self.defined = frozenset(harness.hooks.present())
        self.deadline_s = deadline_s
        # items scored concurrently share the worker: one hook call at a time on it
        self._lock = threading.Lock()
        self._worker: SandboxedWorker | None = None
        if self.defined:
            self._worker = SandboxedWorker(
                sandbox or get_sandbox("bwrap"), harness.hook_program(),
                limits=_HOOK_LIMITS, state="fresh", filename="hooks.py", hash_seed=0,
                isolate_calls=True)

    def call(self, hook: str, *args: Any) -> Any:
        assert self._worker is not None and hook in self.defined
        try:
            with self._lock:
                reply = self._worker.call(hook, *args, timeout_s=self.deadline_s, fresh=True)
        except SandboxError as exc:
            raise _InfraFault(f"sandbox: {exc}") from None
        if reply.ok:
            if _depth(reply.value) > MAX_HOOK_DEPTH:
                raise _HookFault(f"{hook}: reply nested deeper than {MAX_HOOK_DEPTH} levels")
            return reply.value
        if reply.kind == "protocol" and "reply longer than" in reply.message:
            raise _HookFault(f"{hook}: reply over {MAX_HOOK_REPLY_BYTES} bytes")
        # Every failed reply is the hook's doing, `protocol` included: the hook's
        # process is the only writer of the reply channel besides the worker itself.
        detail = f"{reply.error_type}: {reply.message}" if reply.error_type else reply.message
        raise _HookFault(f"{hook}: {reply.kind}" + (f" ({detail})" if detail else ""))

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()

    def __enter__(self) -> HookRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class HarnessRuntime:
    """Runs one harness on items of one setting (see the module docstring)."""

    def __init__(self, harness: Harness, setting: Setting, *, hooks: Hooks | None = None,
                 max_steps: int = MAX_STEPS, student_modality: Modality = "text") -> None:
        self.harness = harness
        self.setting = setting
        self.hooks: Hooks = hooks if hooks is not None else HookRunner(harness)
        self.max_steps = max_steps
        self.student_modality: Modality = student_modality

    def close(self) -> None:
        self.hooks.close()

    def __enter__(self) -> HarnessRuntime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run_item(self, item: Item, student: StudentFn,
                 policy: ItemPolicy | None = None) -> ItemOutcome:
        """Answer `item` with the harness (changed by `policy`, if any); never raises
        for what hooks or the student's API do (see ItemOutcome.status)."""
        start = time.perf_counter()
        run = _ItemRun(self, item, student, policy)
        try:
            status, answer = run.execute()
            error = ""
        except _HookFault as exc:
            status, answer, error = "hook_error", None, str(exc)
        except _InfraFault as exc:
            status, answer, error = "infra_error", None, str(exc)
        return ItemOutcome(
            item_id=item.item_id, status=status, answer=answer, calls=run.calls,
            hook_trace=run.trace, error=error, step_limit=run.step_limit,
            student_modality=self.student_modality,
            host_s=time.perf_counter() - start - run.student_s,
            extra_calls=list(policy.extra_calls) if policy is not None else [])


class _ItemRun:
    """The state of one item's run (kept apart so a failure still reports it)."""

    def __init__(self, runtime: HarnessRuntime, item: Item, student: StudentFn,
                 policy: ItemPolicy | None = None) -> None:
        self.rt = runtime
        self.policy = policy
        self.item = item
        self.student = student
        self.calls: list[dict[str, str]] = []
        self.trace: list[dict[str, Any]] = []
        self.step_limit = False
        self.student_s = 0.0

    def hook(self, name: str, *args: Any) -> Any:
        value = self.rt.hooks.call(name, *args)
        self.trace.append({"hook": name, "value": value})
        return value

    def execute(self) -> tuple[Status, str]:
        harness = self.rt.harness
        obs = self.rt.setting.observation(self.item, harness.resources)
        raw_cards = self.policy is not None and self.policy.raw_cards
        if (not raw_cards and "select_lines" in self.rt.hooks.defined
                and isinstance(obs.get("candidates"), list)):
            obs["candidates"] = [self._select(c, obs["question"]) for c in obs["candidates"]]
        if (policy := self.policy) is not None:
            obs = self._guard(lambda: policy.observation(obs))
        if "route" not in self.rt.hooks.defined:
            self.call_student(obs, "answer", {}, image=True)
            return "answered", self.parse(obs)
        while True:
            state = {"calls": list(self.calls), "max_steps": self.rt.max_steps}
            decision = _check_decision(self.hook("route", obs, state), harness)
            kind, body = next(iter(decision.items()))
            if kind == "abstain":
                return "abstain", ""
            if kind == "done":
                if not self.calls:
                    raise _HookFault("route: done before any student call")
                break
            if kind == "verdict" and self.policy is not None:
                instead = self.policy.verdict(body, obs)
                if instead is not None:
                    self.call_student(obs, instead["prompt"], instead.get("vars", {}),
                                      image=bool(instead.get("image", False)))
                    break
            if kind == "verdict":
                if harness.answer_mode == "verdict":
                    return "verdict", body
                if harness.answer_mode == "defer":
                    raise _HookFault("route: a verdict, but answer_mode is 'defer'")
                # suggest: the verdict goes to the student as {suggestion}.
                if len(self.calls) < self.rt.max_steps:
                    self.call_student(obs, "answer", {"suggestion": body}, image=True)
                else:
                    self.step_limit = True
                break
            if len(self.calls) >= self.rt.max_steps:
                self.step_limit = True  # refused: the last reply stands
                break
            self.call_student(obs, body["prompt"], body.get("vars", {}),
                              image=bool(body.get("image", False)))
        return "answered", self.parse(obs)

    def _guard(self, fn: Callable[[], Any]) -> Any:
        """A policy's own student calls fail like the harness's: API errors are infra."""
        started = time.perf_counter()
        try:
            return fn()
        except ModelError as exc:
            raise _InfraFault(f"student: {type(exc).__name__}: {exc}") from None
        finally:
            self.student_s += time.perf_counter() - started

    def _select(self, candidate: Any, question: str) -> Any:
        if not isinstance(candidate, dict) or not isinstance(candidate.get("card"), str):
            return candidate
        lines = self.hook("select_lines", candidate["card"], question)
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise _HookFault("select_lines: must return a list of strings")
        return {**candidate, "card": "\n".join(lines)}

    def call_student(self, obs: dict[str, Any], prompt: str, vars_: Mapping[str, Any],
                     *, image: bool) -> None:
        if self.policy is not None:
            policy, asked = self.policy, dict(vars_)
            host_reply, vars_ = self._guard(lambda: policy.before_call(prompt, asked, obs))
            if host_reply is not None:
                self.calls.append({"prompt": prompt, "reply": host_reply, "by": "host"})
                return
        try:
            text = render_template(self.rt.harness.prompts[prompt], {**obs, **vars_})
        except TemplateError as exc:
            raise _HookFault(f"prompt {prompt!r}: {exc}") from None
        picture = None
        if image and self.rt.student_modality == "image":
            picture = self.rt.setting.image(self.item)
        started = time.perf_counter()
        try:
            reply = self.student(text, picture)
        except ModelError as exc:
            raise _InfraFault(f"student: {type(exc).__name__}: {exc}") from None
        finally:
            self.student_s += time.perf_counter() - started
        self.calls.append({"prompt": prompt, "reply": reply})

    def parse(self, obs: Mapping[str, Any]) -> str:
        text = self.calls[-1]["reply"] if self.calls else ""
        if "parse" not in self.rt.hooks.defined:
            return text.strip()
        answer = self.hook("parse", text, dict(obs))
        if not isinstance(answer, str):
            raise _HookFault(f"parse: must return a string, not {type(answer).__name__}")
        return answer


class _CallStudent(BaseModel):
    """The body of route's call_student decision: strict, so a hook's value is taken
    only in the types the host uses (a path or a number where a name belongs is refused)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    prompt: str
    vars: dict[str, Any] = Field(default_factory=dict)
    image: bool = False


def _check_decision(value: Any, harness: Harness) -> dict[str, Any]:
    """route's return value, checked against the contract; _HookFault otherwise."""
    if not isinstance(value, dict) or len(value) != 1:
        raise _HookFault("route: must return a dict with exactly one of "
                         f"call_student, done, verdict, abstain; got {_short(value)}")
    kind, body = next(iter(value.items()))
    if kind in ("abstain", "done") and body is True:
        return value
    if kind == "verdict" and isinstance(body, str):
        return value
    if kind == "call_student" and isinstance(body, dict):
        unknown = set(body) - set(_CallStudent.model_fields)
        if unknown:
            raise _HookFault(f"route: call_student has unknown keys {sorted(unknown)}")
        try:
            call = _CallStudent.model_validate(body)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(map(str, err["loc"]))
            raise _HookFault(f"route: call_student {where}: {err['msg']}") from None
        if call.prompt not in harness.prompts:
            raise _HookFault(f"route: unknown prompt {_short(call.prompt)}; "
                             f"prompts: {', '.join(sorted(harness.prompts))}")
        return value
    raise _HookFault(f"route: malformed decision {_short(value)}")


def _depth(value: Any) -> int:
    """Nesting depth of a JSON value, without recursion (the hook chose the shape)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_HOOK_DEPTH:
            return level
        if isinstance(node, dict):
            stack += [(v, level + 1) for v in node.values()]
        elif isinstance(node, list):
            stack += [(v, level + 1) for v in node]
    return deepest


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
