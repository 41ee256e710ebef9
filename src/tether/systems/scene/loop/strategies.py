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
from tether.strategies import StrategyResult, register_strategy
from tether.systems.scene.loop.host import GENERATOR_ROLE, HostLoop
from tether.systems.scene.loop.judges import JUDGE_ROLE, VERIFIER_ROLE
from tether.systems.scene.loop.params import HostParams, LoopBounds
from tether.systems.scene.loop.refiners import resolve_refiner
from tether.systems.scene.record import Refiner
from tether.systems.scene.scenes import TaskScenes

ROLES = (GENERATOR_ROLE, VERIFIER_ROLE, JUDGE_ROLE)


class VetrParams(HostParams):
    """The host loop's settings and the refiner of failed edits."""

    refiner: Annotated[str, params.checked(resolve_refiner)] = Field(
        "vetr", description="the refiner of failed edits: vetr or off")
    projection_scope: Literal["keep_other_writes", "paper"] = Field(
        "keep_other_writes", description="keep_other_writes: a projection never drops "
                                              "the submission's other writes; paper: "
                                              "Algorithm 1 as stated")

    def roles(self) -> tuple[str, ...]:
        # The judge is declared at n = 1 too (its tournament then makes no call), so one
        # experiment can name a judge model for every arm.
        return ROLES if self.verifier else (GENERATOR_ROLE, JUDGE_ROLE)


@register_strategy("vetr")
class Vetr:
    name: ClassVar[str] = "vetr"
    Params = VetrParams

    def __init__(self, params: VetrParams | None = None) -> None:
        self.params = params if params is not None else self.Params()
        #: tests inject scripted refiners and their own TaskScenes here
        self.refiner_override: Refiner | None = None
        self.scenes: TaskScenes | None = None

    @property
    def roles(self) -> tuple[str, ...]:
        return self.params.roles()

    def run(self, ctx: TrialContext) -> StrategyResult:
        refiner = self.refiner_override or resolve_refiner(self.params.refiner,
                                                           self.params.projection_scope)
        return HostLoop(self.params, refiner, name=self.name, scenes=self.scenes).run(ctx)


class VigaParams(LoopBounds):
    """What a config may set of VIGA's runner: the loop's limits, decoding, rendering."""

    temperature: params.Temperature = Field(0.0, description="the generator's temperature")


@register_strategy("viga")
class Viga:
    name: ClassVar[str] = "viga"
    roles: ClassVar[tuple[str, ...]] = (GENERATOR_ROLE, VERIFIER_ROLE)
    Params = VigaParams

    def __init__(self, params: VigaParams | None = None) -> None:
        self.params = params if params is not None else self.Params()
        # VIGA's runner as the paper describes it: one candidate, a persistent scene,
        # its verifier after every delivered edit (the settings no config changes)
        self.host = HostParams.model_validate({**self.params.model_dump(), "n": 1,
                                               "verifier": True, "verify": "every_edit",
                                               "persistent": True})
        self.scenes: TaskScenes | None = None

    def run(self, ctx: TrialContext) -> StrategyResult:
        return HostLoop(self.host, resolve_refiner("off"), name=self.name,
                        scenes=self.scenes).run(ctx)
