"""The declared params of the scene strategies, written once and read by the loop.

`SceneParams`: what every scene strategy takes (its calls' decoding and the render
settings). `HostParams`: the host loop's settings (`host.HostLoop` reads them); each of
the paper's ablations changes one of them. `vetr` declares them (and its refiner); `viga`
declares the few it lets a config change and fixes the rest (strategies.py).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from tether import params

__all__ = ["HostParams", "SceneParams"]


class SceneParams(params.Params):
    """What every scene strategy takes: its calls' decoding and the render settings."""

    max_tokens: params.Tokens = Field(2048, description="most tokens of one generator reply")
    size: params.Count | None = Field(None, description="render size (default: the task's)")
    samples: params.Count | None = Field(None, description="render samples (default: the "
                                                           "task's)")
    modality: Literal["auto", "text", "image"] = Field(
        "auto", description="what the models see of a render: image, text, or auto "
                            "(images where the model accepts them)")


class LoopBounds(SceneParams):
    """The loop's limits, which `vetr` and `viga` both let a config set."""

    max_interactions: params.Count = Field(10, description="most interactions of the loop "
                                                           "(T)")
    history: params.Count = Field(24, description="unpinned messages of the conversation "
                                                  "kept (the ablation: 3)")
    timeout_s: params.Seconds = Field(7200.0, description="wall-clock cap of one trial")


class HostParams(LoopBounds):
    """The host loop's settings (`host.HostLoop`)."""

    n: params.Count = Field(1, description="candidate edits per interaction (width N)")
    verifier: bool = Field(True, description="a verifier call reviews delivered edits (off: "
                                             "the no-verifier ablation)")
    verify: Literal["requested", "every_edit"] = Field(
        "requested", description="when the verifier runs: when the edit asks for it, or "
                                 "after every delivered edit")
    verifier_memory: bool = Field(False, description="one verifier memory shared across "
                                                     "interactions")
    shared_memory: bool = Field(False, description="one memory for generator and verifier: "
                                                   "the verifier reads the generator's window "
                                                   "(the paper's w/o role asymmetry)")
    persistent: bool = Field(False, description="edits apply to the latest delivered scene "
                                                "instead of a fresh base")
    show_trace: bool = Field(False, description="the generator sees the raw program's "
                                                "observed writes")
    temperature: params.Temperature | None = Field(
        None, description="the generator's temperature (none: 0 at n = 1, 0.7 above: n "
                          "equal samples select nothing)")

    @model_validator(mode="after")
    def _one_memory_ablation(self) -> HostParams:
        if self.shared_memory and self.verifier_memory:
            raise ValueError("shared_memory and verifier_memory are two different ablations: "
                             "set one of them")
        return self

    @property
    def sampling_temperature(self) -> float:
        if self.temperature is not None:
            return self.temperature
        return 0.0 if self.n == 1 else 0.7
