"""The five decision interventions (the paper's Table 4 / Table 27) applied to a fixed harness.

Each changes how one decision is executed, as host-side configuration of the run: the
harness document is kept (persist edits a copy of it), and an `ItemPolicy`
(systems/compile/runtime.py) changes what its hooks and prompts see. Conventions a harness
follows for an intervention to apply (otherwise it is n/a: `NotApplicable`, a trial
error naming why, never a score). Most are decided per item, from the item's
observation (`tether compile` scores an intervention over the items it applies to);
`persist` and `generate` are decided by the harness alone:

- `decide`: resource only after a yes/no request. The host first asks the student
  whether it wants the enabled resources (REQUEST_PROMPT); on anything but "yes" the
  resource fields are supplied empty. n/a without resources.
- `select`: all candidates shown without the explicit pick or the ranker. Candidates
  lose their similarity; a `pick` prompt (the explicit pick) is answered by the host
  with "1" and the `card` var of the next call holds every candidate's card, in the
  linker's order. n/a without `candidates`.
- `generate`: student-named lookup. The `pick` call becomes NAME_PROMPT; the host
  looks the named entity up (`setting.lookup(name, resources)`) and offers it as the
  only candidate. n/a without a `pick` prompt or a setting with `lookup`.
- `integrate`: the raw card instead of `select_lines`' choice; on signals, the raw
  signals (JSON) replace the route's processed vars and its verdicts. n/a when the
  harness rewrites nothing (no `select_lines`, no signals).
- `persist`: the answer contract and the parser removed together: the `parse` hook is
  dropped and contract lines ("Answer ...", "... one word ...") leave the `answer`
  prompt; a verdict is shown to the student as a suggestion. n/a when there is nothing
  to remove.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from tether.errors import ConfigError
from tether.systems.compile.harness import Harness, template_fields
from tether.systems.compile.setting import Setting

__all__ = ["INTERVENTIONS", "NAME_PROMPT", "REQUEST_PROMPT", "NotApplicable",
           "intervene", "intervened_harness"]

INTERVENTIONS = ("decide", "select", "generate", "integrate", "persist")
REQUEST_PROMPT = ("Question: {question}\nBefore answering you may ask for: {names}.\n"
                  "Do you want it? Answer yes or no.")
NAME_PROMPT = ("Question: {question}\nName the entity shown in the image. "
               "Answer with its name only.")
_BASE_FIELDS = ("item_id", "question")
_CONTRACT = re.compile(r"^\s*(answer\b.*|.*\b(one word|single word|short phrase|"
                       r"number only)\b.*)$", re.I)

Ask = Callable[[str], str]


class NotApplicable(ConfigError):
    """The intervention changes nothing this harness does (the paper's n/a)."""


def _empty(value: Any) -> Any:
    return type(value)() if isinstance(value, str | list | dict) else None


class _Policy:
    """No change; the interventions override what they change."""

    raw_cards = False

    def __init__(self, harness: Harness, setting: Setting, ask: Callable[[str, bytes | None], str],
                 image: Callable[[], bytes | None]) -> None:
        self.harness = harness
        self.setting = setting
        self._student = ask
        self._image = image
        self.extra_calls: list[dict[str, str]] = []

    def ask(self, name: str, prompt: str, *, image: bool = False) -> str:
        reply = self._student(prompt, self._image() if image else None)
        self.extra_calls.append({"prompt": name, "reply": reply})
        return reply

    def observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        return obs

    def before_call(self, prompt: str, vars_: dict[str, Any],
                    obs: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        return None, vars_

    def verdict(self, text: str, obs: dict[str, Any]) -> dict[str, Any] | None:
        return None


class _Decide(_Policy):
    def observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        fields = [k for k in obs if k not in _BASE_FIELDS]
        if not fields:
            raise NotApplicable("decide: the harness enables no resource to request")
        reply = self.ask("_request", REQUEST_PROMPT.format(question=obs["question"],
                                                           names=", ".join(fields)))
        if reply.strip().casefold().startswith("yes"):
            return obs
        return {k: (v if k in _BASE_FIELDS else _empty(v)) for k, v in obs.items()}


def _all_cards(candidates: list[dict[str, Any]]) -> str:
    return "\n\n".join(str(c.get("card", "")) for c in candidates)


class _Select(_Policy):
    def observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(obs.get("candidates"), list):
            raise NotApplicable("select: the observation has no candidates")
        obs["candidates"] = [{k: v for k, v in c.items() if k != "similarity"}
                             for c in obs["candidates"]]
        return obs

    def before_call(self, prompt: str, vars_: dict[str, Any],
                    obs: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        if prompt == "pick":
            return "1", vars_
        if "card" in vars_:
            vars_["card"] = _all_cards(obs["candidates"])
        return None, vars_


class _Generate(_Policy):
    def observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        if "pick" not in self.harness.prompts or not hasattr(self.setting, "lookup"):
            raise NotApplicable("generate: no `pick` prompt, or a setting without lookup")
        return obs

    def before_call(self, prompt: str, vars_: dict[str, Any],
                    obs: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        if prompt != "pick":
            return None, vars_
        name = self.ask("_name", NAME_PROMPT.format(question=obs["question"]), image=True)
        # settings that offer the pick intervention define lookup; the protocol omits it
        found = self.setting.lookup(name.strip(), self.harness.resources)  # type: ignore[attr-defined]
        obs["candidates"] = [found or {"name": name.strip(), "similarity": 0.0,
                                       "card": "(no entry found)"}]
        return "1", vars_


class _Integrate(_Policy):
    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.raw_cards = self.harness.hooks.select_lines is not None

    def observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        if not self.raw_cards and "signals" not in obs:
            raise NotApplicable("integrate: the harness rewrites nothing (no select_lines, "
                                "no signals)")
        return obs

    def _raw(self, obs: dict[str, Any]) -> str:
        return "Raw measurements: " + json.dumps(obs["signals"], sort_keys=True)

    def before_call(self, prompt: str, vars_: dict[str, Any],
                    obs: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        if "signals" in obs:
            vars_ = {k: self._raw(obs) for k in vars_}
        return None, vars_

    def verdict(self, text: str, obs: dict[str, Any]) -> dict[str, Any] | None:
        if "signals" not in obs:
            return None
        fields = [f for f in template_fields(self.harness.prompts["answer"]) if f not in obs]
        return {"prompt": "answer", "vars": dict.fromkeys(fields, self._raw(obs)),
                "image": True}


class _Persist(_Policy):
    def verdict(self, text: str, obs: dict[str, Any]) -> dict[str, Any] | None:
        fields = [f for f in template_fields(self.harness.prompts["answer"]) if f not in obs]
        vars_ = dict.fromkeys(fields, "")
        vars_["suggestion"] = f"Suggested answer (from a rule): {text}"
        return {"prompt": "answer", "vars": vars_, "image": True}

    def before_call(self, prompt: str, vars_: dict[str, Any],
                    obs: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        if prompt == "answer" and "{suggestion}" in self.harness.prompts["answer"]:
            vars_.setdefault("suggestion", "")
        return None, vars_


def _persisted(harness: Harness) -> Harness:
    """The harness with its answer contract and parser removed (verdicts as suggestions)."""
    answer = harness.prompts.get("answer", "")
    kept = "\n".join(ln for ln in answer.splitlines() if not _CONTRACT.match(ln))
    verdicts = harness.answer_mode == "verdict"
    if kept == answer and harness.hooks.parse is None and not verdicts:
        raise NotApplicable("persist: no answer contract, parser or verdict to remove")
    if verdicts and "{suggestion}" not in kept:
        kept += "\n{suggestion}"
    doc = harness.document()
    doc["prompts"] = {**doc["prompts"], "answer": kept}
    doc["hooks"] = {k: v for k, v in doc["hooks"].items() if k != "parse"}
    return Harness.model_validate(doc)


_POLICIES: dict[str, type[_Policy]] = {"decide": _Decide, "select": _Select,
                                       "generate": _Generate, "integrate": _Integrate,
                                       "persist": _Persist}


def intervene(name: str, harness: Harness, setting: Setting,
              student: Callable[[str, bytes | None], str],
              image: Callable[[], bytes | None]) -> tuple[Harness, _Policy]:
    """(the harness to run, the item policy) of intervention `name` on `harness`. The
    policy is per item (it keeps the calls it made); `image` gives the item's image."""
    if name not in _POLICIES:
        raise ConfigError(f"unknown intervention {name!r}",
                          hint=f"one of {', '.join(INTERVENTIONS)}")
    run = intervened_harness(name, harness)
    return run, _POLICIES[name](run, setting, student, image)


def intervened_harness(name: str, harness: Harness) -> Harness:
    """The harness intervention `name` runs: persist's edited copy, else `harness`
    (NotApplicable when persist has nothing to remove)."""
    if name not in _POLICIES:
        raise ConfigError(f"unknown intervention {name!r}",
                          hint=f"one of {', '.join(INTERVENTIONS)}")
    return _persisted(harness) if name == "persist" else harness
