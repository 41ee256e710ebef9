"""`vetr` and `viga`: the host loop as strategies of `tether run`.

`vetr`: Algorithm 2 with the refiner, width n = 1 or 4, and the paper's ablation switches
(run at n = 1 as the paper does): refiner = "off", shared_memory = true (one memory for
generator and verifier: "w/o role asymmetry"), history = 3 (3-message window), verifier =
false, persistent = true (persistent scene instead of a fresh base); and tether's own:
verifier_memory = true (the verifier keeps its own past rounds), show_trace = true (the
generator sees observed writes). projection_scope: "keep_other_writes" (the default: a
projection never drops the submission's other writes) or "paper" (Algorithm 1 as stated;
the paper's configs).
verify = "requested" (the paper: the verifier runs when the selected edit asks for it) or
"every_edit" (after every delivered edit, as VIGA's runner does).

`viga`: VIGA's runner as the paper describes it: the same iterative loop with render-only
visual feedback (no refiner, no trace), n = 1, saving successful scene updates
(persistent scene), its verifier after every delivered edit. Its prompts are tether's,
not VIGA's released ones (the paper's Appendix O control found no significant
difference from swapping them).
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from tether import params
from tether.context import TrialContext
from tether.errors import ConfigError
from tether.strategies import StrategyResult, register_strategy
from tether.systems.scene.loop.host import GENERATOR_ROLE, HostLoop, LoopConfig
from tether.systems.scene.loop.judges import JUDGE_ROLE, VERIFIER_ROLE
from tether.systems.scene.loop.messages import MODALITIES
from tether.systems.scene.loop.refiners import resolve_refiner
from tether.systems.scene.record import Refiner
from tether.systems.scene.refiner import DEFAULT_PROJECTION_SCOPE
from tether.systems.scene.scenes import TaskScenes

ROLES = (GENERATOR_ROLE, VERIFIER_ROLE, JUDGE_ROLE)
VERIFY_WHEN = ("requested", "every_edit")


class SceneParams(params.Params):
    """What every scene strategy takes: its calls' decoding and the render settings."""

    max_tokens: int = Field(2048, description="most tokens of one generator reply")
    size: int | None = Field(None, description="render size (default: the task's)")
    samples: int | None = Field(None, description="render samples (default: the task's)")
    modality: Literal["auto", "text", "image"] = Field(
        "auto", description="what the models see of a render: image, text, or auto "
                            "(images where the model accepts them)")


class _LoopParams(SceneParams):
    max_interactions: int = Field(10, ge=1, description="most interactions of the loop")
    history: int = Field(24, ge=1, description="messages of the conversation kept")
    timeout_s: float = Field(7200.0, description="wall-clock cap of one trial")


@register_strategy("vetr")
class Vetr:
    name: ClassVar[str] = "vetr"

    class Params(_LoopParams):
        n: int = Field(1, ge=1, description="candidate edits per interaction")
        refiner: Annotated[str, params.checked(resolve_refiner)] = Field(
            "vetr", description="the refiner of failed edits: vetr or off")
        verifier: bool = Field(True, description="a verifier call reviews delivered edits")
        verify: Literal["requested", "every_edit"] = Field(
            "requested", description="when the verifier runs: when the edit asks for it, "
                                     "or after every delivered edit")
        verifier_memory: bool = Field(False, description="the verifier keeps its own past "
                                                         "rounds")
        shared_memory: bool = Field(False, description="one memory for generator and "
                                                       "verifier (the paper's w/o role "
                                                       "asymmetry)")
        projection_scope: Literal["keep_other_writes", "paper"] = Field(
            "keep_other_writes", description="keep_other_writes: a projection never "
                                                  "drops the submission's other writes; "
                                                  "paper: Algorithm 1 as stated")
        persistent: bool = Field(False, description="edits apply to the latest scene "
                                                    "instead of a fresh base")
        show_trace: bool = Field(False, description="the generator sees observed writes")
        temperature: float | None = Field(None, description="the generator's temperature "
                                                            "(none: the model's default)")

        def roles(self) -> tuple[str, ...]:
            return ROLES if self.verifier else (GENERATOR_ROLE, JUDGE_ROLE)

    def __init__(self, n: int = 1, refiner: str = "vetr", max_interactions: int = 10,
                 history: int = 24, verifier: bool = True, verify: str = "requested",
                 verifier_memory: bool = False, shared_memory: bool = False,
                 projection_scope: str = DEFAULT_PROJECTION_SCOPE,
                 persistent: bool = False, show_trace: bool = False, max_tokens: int = 2048,
                 temperature: float | None = None, timeout_s: float = 7200.0,
                 size: int | None = None, samples: int | None = None,
                 modality: str = "auto") -> None:
        if n < 1 or max_interactions < 1 or history < 1:
            raise ConfigError("vetr needs n, max_interactions and history >= 1")
        if modality not in MODALITIES:
            raise ConfigError(f"unknown modality {modality!r}",
                              hint=f"one of {', '.join(MODALITIES)}")
        if verify not in VERIFY_WHEN:
            raise ConfigError(f"unknown verify {verify!r}",
                              hint=f"one of {', '.join(VERIFY_WHEN)}")
        if shared_memory and verifier_memory:
            raise ConfigError("shared_memory and verifier_memory are two different "
                              "ablations", hint="set one of them")
        self.refiner_name = refiner
        resolve_refiner(refiner, projection_scope)  # fail at config time when absent
        self.config = LoopConfig(
            n=n, max_interactions=max_interactions, history=history, verifier=verifier,
            verify=verify, verifier_memory=verifier_memory, shared_memory=shared_memory,
            projection_scope=projection_scope if refiner == "vetr" else None,
            persistent=persistent, show_trace=show_trace,
            max_tokens=max_tokens, temperature=temperature, timeout_s=timeout_s, size=size,
            samples=samples, modality=modality)
        #: tests inject scripted refiners and their own TaskScenes here
        self.refiner_override: Refiner | None = None
        self.scenes: TaskScenes | None = None

    @property
    def roles(self) -> tuple[str, ...]:
        # The judge is declared at n = 1 too (its tournament then makes no call), so one
        # experiment can name a judge model for every arm.
        if self.config.verifier:
            return ROLES
        return (GENERATOR_ROLE, JUDGE_ROLE)

    def run(self, ctx: TrialContext) -> StrategyResult:
        refiner = self.refiner_override or resolve_refiner(
            self.refiner_name, self.config.projection_scope or DEFAULT_PROJECTION_SCOPE)
        return HostLoop(self.config, refiner, name=self.name, scenes=self.scenes).run(ctx)


@register_strategy("viga")
class Viga:
    name: ClassVar[str] = "viga"
    roles: ClassVar[tuple[str, ...]] = (GENERATOR_ROLE, VERIFIER_ROLE)

    class Params(_LoopParams):
        temperature: float = Field(0.0, description="the generator's temperature")

    def __init__(self, max_interactions: int = 10, history: int = 24, max_tokens: int = 2048,
                 temperature: float = 0.0, timeout_s: float = 7200.0, size: int | None = None,
                 samples: int | None = None, modality: str = "auto") -> None:
        self.config = LoopConfig(
            n=1, max_interactions=max_interactions, history=history, verifier=True,
            verify="every_edit", persistent=True, max_tokens=max_tokens, temperature=temperature,
            timeout_s=timeout_s, size=size, samples=samples, modality=modality)
        self.scenes: TaskScenes | None = None

    def run(self, ctx: TrialContext) -> StrategyResult:
        return HostLoop(self.config, resolve_refiner("off"), name=self.name,
                        scenes=self.scenes).run(ctx)
