"""`screenshot_judge`: a VLM reads a screenshot and answers the task's requirements.

This is the field's default judge and tether's ungrounded comparator: the model
sees pixels and gives an opinion, it measures nothing (`grounded = False`). It is
usable as a metric (`--metric screenshot_judge;model=SPEC`, or in `tether rescore`)
and as a feedback channel part (`feedback = "screenshot_judge;model=SPEC"`). It owns no
model: it calls the `generate` its environment binds (role `reviewer` as feedback,
charged to the budget; role `metric` as the score, recorded and never charged).

Each requirement of `task.data["requirements"]` becomes a binary check; the score
is the fraction judged met, `passed` is all of them met. A reply that cannot be
read as the checks JSON is an error observation (invariant 6), never a score.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from pydantic import Field

from tether import params
from tether.core import Artifact, Defect, Observation, Task
from tether.errors import ConfigError
from tether.instruments import InstrumentEnv, register_instrument
from tether.models import Message, NoJSONError, first_json, png_data_url

CANVAS = (1920, 1080)
SYSTEM = (
    "You are a meticulous visual QA reviewer. You see a screenshot of a rendered HTML "
    "artifact and a numbered list of requirements. For each requirement decide from the "
    "screenshot alone whether it is met. Answer with one JSON object and nothing else: "
    '{"checks": [{"index": <int>, "met": <true|false>, "reason": "<short>"}]} '
    "with one entry per requirement, in order."
)


def judge_messages(task: Task, png: bytes) -> list[Message]:
    """The judge's conversation: the requirements and the screenshot as a data URL."""
    reqs = task.data.get("requirements") or []
    listing = "\n".join(f"{i}. {r}" for i, r in enumerate(reqs))
    url = png_data_url(png)
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": [
            {"type": "text", "text": f"Task: {task.prompt}\n\nRequirements:\n{listing}"},
            {"type": "image_url", "image_url": {"url": url}},
        ]},
    ]


def parse_judgement(text: str, n_requirements: int) -> list[dict[str, Any]]:
    """The judge's checks, one per requirement; ValueError when the reply says none."""
    try:
        data = first_json(text, kind="object", strip_think=True)
    except NoJSONError:
        raise ValueError("no JSON object in the judge's reply") from None
    checks = data.get("checks")
    if not isinstance(checks, list):
        raise ValueError("the judge's reply has no 'checks' list")
    by_index: dict[int, dict[str, Any]] = {}
    for pos, c in enumerate(checks):
        if not isinstance(c, dict) or "met" not in c:
            raise ValueError(f"check {pos} of the judge's reply has no 'met'")
        idx = int(c.get("index", pos))
        by_index.setdefault(idx, {"index": idx, "met": bool(c["met"]),
                                  "reason": str(c.get("reason", ""))})
    missing = [i for i in range(n_requirements) if i not in by_index]
    if missing:
        raise ValueError(f"the judge answered no check for requirement(s) {missing}")
    return [by_index[i] for i in range(n_requirements)]


def judgement_observation(task: Task, checks: list[dict[str, Any]],
                          raw: dict[str, Any] | None = None) -> Observation:
    reqs = task.data.get("requirements") or []
    defects = [Defect(kind="requirement_unmet", message=f"{reqs[c['index']]}: {c['reason']}",
                      location=f"requirement {c['index']}",
                      evidence={"requirement": reqs[c["index"]], "reason": c["reason"]})
               for c in checks if not c["met"]]
    met = sum(1 for c in checks if c["met"])
    return Observation(instrument=ScreenshotJudge.name, version=ScreenshotJudge.version,
                       grounded=False, score=met / len(checks) if checks else None,
                       passed=met == len(checks), defects=defects,
                       raw={"checks": checks, **(raw or {})})


def screenshot(html: str, modality: str, frame_ms: int | None = None) -> bytes:
    """A PNG of the artifact as a person would first see it (network blocked)."""
    from tether.systems.pages.geometry.browser import get_browser_host

    host = get_browser_host()

    async def shoot() -> bytes:
        async with host.page(*CANVAS) as session:
            page = session.page
            await page.set_content(html, wait_until="load", timeout=15_000)
            await page.wait_for_timeout(80 if frame_ms is None else frame_ms)
            return await page.screenshot(full_page=modality == "web", type="png")

    return host.run(shoot(), timeout_s=60)


@register_instrument("screenshot_judge")
class ScreenshotJudge:
    """Metric or feedback part; `model` is a spec (default: the bound role's model)."""

    name: ClassVar[str] = "screenshot_judge"
    version: ClassVar[str] = "1"
    grounded: ClassVar[bool] = False
    #: its calls go through the bound generate (role by purpose: see tether.context)
    calls_model = True

    class Params(params.Params):
        model: str | None = Field(None, description="a model spec for the judge call "
                                                    "(default: the role's model)")
        max_tokens: params.Tokens = Field(1024, description="most tokens of the verdict")

    def __init__(self, params: Params | None = None) -> None:
        self.params = params if params is not None else self.Params()

    @staticmethod
    def feedback(obs: Observation) -> str:
        """A model's opinion of a screenshot, said as such."""
        lines = [f"- {d.message}" for d in obs.defects] or ["- every requirement looks met"]
        return ("A reviewer looking at a screenshot of the rendered page judged these "
                "requirements unmet:\n" + "\n".join(lines))

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        reqs = task.data.get("requirements") or []
        if not reqs:
            raise ConfigError(f"task {task.key} has no requirements for the screenshot judge")
        modality = task.data.get("modality", "figure")
        frames = task.data.get("frame_times_ms") or []
        png = screenshot(artifact.text, modality, frames[-1] if frames else None)
        generate = env.require_generate(self.name)
        (reply,) = generate(judge_messages(task, png), model=self.params.model,
                            max_tokens=self.params.max_tokens)
        try:
            checks = parse_judgement(reply.text, len(reqs))
        except (ValueError, json.JSONDecodeError) as exc:
            return Observation(instrument=self.name, version=self.version, grounded=False,
                               error=f"unreadable judge reply: {exc}",
                               raw={"reply": reply.text[:2000]})
        u = reply.usage
        return judgement_observation(task, checks, {
            "judge_model": reply.model_id, "reply": reply.text[:4000],
            "usage": {"input_tokens": u.input_tokens, "output_tokens": u.output_tokens}})
