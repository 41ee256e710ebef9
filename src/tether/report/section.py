"""Report sections: each subsystem's part of the report, behind one typed interface.

A section (terminal agents, judged trajectories, scene programs, harness compilation...)
computes its numbers from the run's trial entries as a pydantic model, the schema of what
`tether report --json` prints under the section's name; it names the template that shows
them and may draw plots and finish its numbers for the page (embedding images). The
report's hub (data.py, html.py) iterates the registered sections and names none of them:

    @register_section
    class MySection(Section):
        name = "mine"                      # numbers["mine"]; None when absent
        numbers_model = MyNumbers          # a pydantic model
        template = "mine.html.j2"          # included in the index page
        templates = "my_package"           # where templates/mine.html.j2 lives
        order = 50

        def compute(self, run: SectionInput) -> MyNumbers | None: ...

A section is a module of `tether.report.sections` (or of another distribution, declared
under the entry-point group `tether.report_sections`): adding one edits no hub module.

`TrialEntry` (one trial as the report groups it) lives here because sections and the hub
both read it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

from jinja2 import Environment
from pydantic import BaseModel

from tether.core import TrialRecord
from tether.registry import Registry, import_modules
from tether.report.values import arm_label
from tether.runs import RunStore

Numbers = TypeVar("Numbers", bound=BaseModel)

#: where a section shows: in the index page's body (after the paired comparisons), or
#: appended at the end of the page (after "What the run was")
Placement = Literal["body", "end"]


@dataclass
class TrialEntry:
    record: TrialRecord
    strategy_arm: str  # the experiment's arm label
    setup: str | None  # the model setup's name when the run had several, else None
    budget: str
    value: float | None
    single_shot: float | None

    @property
    def arm(self) -> str:
        """What tables group by: the strategy arm, with the model setup when several."""
        return arm_label(self.record, self.setup)

    @property
    def key(self) -> tuple[str, int]:
        return (self.record.spec.task_key, self.record.spec.seed)

    @property
    def page(self) -> str:
        return f"trials/{self.record.trial_id}.html"


@dataclass(frozen=True)
class SectionInput:
    """What every section may read: the run's store (read-only), its trial entries and
    the report's baseline arm."""

    store: RunStore
    entries: list[TrialEntry]
    baseline: str

    @property
    def run_dir(self) -> Path:
        return Path(self.store.dir)

    @property
    def meta(self) -> dict[str, Any]:
        return self.store.all_meta()


def validated(model: type[Numbers], found: Mapping[str, Any] | None) -> Numbers | None:
    """A section's computed numbers checked against its model; None (the run has nothing
    for the section) stays None."""
    return None if found is None else model.model_validate(found)


class Section(ABC):
    """One part of the report (see the module docstring)."""

    name: ClassVar[str]
    numbers_model: ClassVar[type[BaseModel]]
    template: ClassVar[str]
    order: ClassVar[int]
    placement: ClassVar[Placement] = "body"
    #: the package whose `templates/` folder holds the section's templates (a system
    #: keeps its own: the report's environment looks there too)
    templates: ClassVar[str] = "tether.report"

    @abstractmethod
    def compute(self, run: SectionInput) -> BaseModel | None:
        """The section's numbers, or None when the run has nothing for it."""

    def numbers(self, run: SectionInput) -> dict[str, Any] | None:
        """`compute`, checked against `numbers_model` and dumped as the report's JSON."""
        found = self.compute(run)
        if found is None:
            return None
        if not isinstance(found, self.numbers_model):
            raise TypeError(f"section {self.name!r} computed a {type(found).__name__}, "
                            f"not its {self.numbers_model.__name__}")
        return found.model_dump()

    def draw(self, numbers: dict[str, Any] | None, assets: Path) -> Any:
        """Write the section's plots under `assets`; what the template reads as
        `plots[name]` (paths relative to `assets`). None: no plots."""
        del numbers, assets
        return None

    def lead(self, numbers: dict[str, Any]) -> str | None:
        """The answer the run was made for, in one or two plain sentences, when this
        section knows it better than the first arm's comparison with the baseline (a
        compile: its selected harness on the test split); it opens the report's first
        screen. None (the default): the generic comparison leads."""
        del numbers
        return None

    def finish(self, numbers: dict[str, Any], store: RunStore) -> None:
        """Complete the numbers for the page in place (e.g. images as data URLs)."""
        del numbers, store

    def render(self, env: Environment, numbers: dict[str, Any]) -> str:
        """HTML of an `end` section (body sections are included by the index template)."""
        return env.get_template(self.template).render(**{self.name: numbers})


def _load() -> None:
    import_modules("tether.report.sections", plugins="tether.report_sections")


SECTIONS: Registry[Section] = Registry("report section", load=_load)


def register_section(cls: type[Section]) -> type[Section]:
    """Class decorator: register one instance of the section under its name."""
    SECTIONS.register(cls.name)(cls())
    return cls


def sections(placement: Placement | None = None) -> list[Section]:
    """The registered sections in page order (of one placement, or all)."""
    found = [SECTIONS.get(n) for n in SECTIONS.names()]
    return sorted((s for s in found if placement in (None, s.placement)),
                  key=lambda s: (s.placement != "body", s.order, s.name))
