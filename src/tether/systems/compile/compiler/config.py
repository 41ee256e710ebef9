"""What a `tether compile` is asked to do: flags or a TOML file, validated.

    setting = "docs"            # a registered setting, jsonl:PATH, csv:PATH, hf:PATH,
                                # parquet:PATH, module:attr
    metric = "f1"               # data settings only: exact (default), anls, f1, numeric,
                                # choice or module:function (folded into the setting spec)
    teacher = "anthropic/claude-sonnet-4-5"
    student = "local/smollm2-135m"
    probe = 50                  # split sizes (validation 50, test 200)
    rounds = 3                  # reflection rounds after round 0
    protocol = "A"              # A (edit the latest, the paper's default), B (edit the
                                # incumbent), or AB: both from one H0 (two builds a replicate)
    restarts = 2                # extra round-0 proposals when H0 is unusable
    restart_rejected_h0 = true  # ... or scored and rejected by the gate (below bare)
    builds = 1                  # independent builds (teacher seeds seed+0 .. seed+N-1);
                                # with protocol AB, replicates of an A and a B build each
    interventions = false       # score the selection's five interventions on test too
    comparators = ["h0", "oneshot", "human_recipe", "student_routed", "cot_vote"]
                                # arms scored on test beside bare and the selection;
                                # "plain_vote" and "gepa" (the gepa extra) are
                                # asked for by name only
    gepa_metric_calls = 3000    # the gepa arm's metric-call budget (absent: the build's own)
    gepa_variant = "prompt"     # what GEPA may change: prompt, content (+ resources) or
                                # structured (+ decode, answer mode, parse hook)
    teacher_temperature = 0.7   # the teacher's decoding
    teacher_max_tokens = 2048
    teacher_token_budget = 50000  # input + output tokens of each build's teacher
    student_token_budget = 20000  # generated tokens of every student call of the compile
                                # (both absent by default: unlimited)
    seed = 0                    # split seed; base of the teacher seeds
    out = "builds/docs"

The fields may sit at the top of the file or under a `[compile]` table. The file is read
by the strict loader experiment configs are read with (`tether.runs.strict`): an unknown
field, or one of the wrong type or out of range, is one line naming the file and the
field, with a "did you mean" for a misspelt name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tether.errors import ConfigError
from tether.runs import read_config, strict_model
from tether.systems.compile.compiler.gepa_variants import GepaVariant
from tether.systems.compile.setting import DATA_FORMATS
from tether.systems.compile.settings.data import canonical_spec

__all__ = ["COMPARATORS", "OPTIONAL_COMPARATORS", "CompileConfig", "load_compile_config",
           "stored_config"]

#: the test arms beside bare and the selection (both always scored: bare is the
#: reference of every paired test), in report order
Comparator = Literal["h0", "oneshot", "human_recipe", "student_routed", "cot_vote",
                     "plain_vote", "gepa"]
#: the comparators scored by default
COMPARATORS: tuple[Comparator, ...] = ("h0", "oneshot", "human_recipe", "student_routed",
                                       "cot_vote")
#: comparators scored only when named: GEPA runs a search of its own (a teacher budget
#: as large as the compile's) and needs the `gepa` extra; plain_vote (majority vote
#: without CoT, baselines.py) is paper 001's comparator, n student samples per test item
OPTIONAL_COMPARATORS: tuple[Comparator, ...] = ("plain_vote", "gepa")


class CompileConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    setting: str = Field(min_length=1)
    teacher: str = Field(min_length=1)
    student: str = Field(min_length=1)
    probe: int = Field(default=50, ge=1)
    validation: int = Field(default=50, ge=1)
    test: int = Field(default=200, ge=1)
    rounds: int = Field(default=3, ge=0)
    #: "AB": protocols A and B from one H0 (compiler/plan.py): each replicate is a pair
    #: of builds, 2r (A, whose teacher writes H0) and 2r+1 (B, which reads that H0)
    protocol: Literal["A", "B", "AB"] = "A"
    restarts: int = Field(default=2, ge=0)
    #: a scored H0 the gate rejects (below the bare floor on validation) is replaced by a
    #: restart too, like an unusable one (docs/compile/index.md: the restart rule)
    restart_rejected_h0: bool = True
    builds: int = Field(default=1, ge=1)
    seed: int = 0
    out: str | None = None
    #: a data setting's metric; folded into the setting spec (`jsonl:PATH;metric=f1`)
    metric: str | None = None
    #: the student's modality: auto (text for local and scripted students), text, image
    modality: Literal["auto", "text", "image"] = "auto"
    teacher_temperature: float = Field(default=0.7, ge=0.0, allow_inf_nan=False)
    teacher_max_tokens: int = Field(default=2048, ge=1)
    #: input + output tokens a build's teacher may spend (none: unlimited)
    teacher_token_budget: int | None = Field(default=None, ge=1)
    #: generated tokens (output + reasoning) the student may spend over the whole compile,
    #: every split and arm of every build (none: unlimited)
    student_token_budget: int | None = Field(default=None, ge=1)
    #: let the teacher ask for one more probe trace per reflection round
    trace_requests: bool = True
    #: also score the five decision interventions of the selection on the test items
    interventions: bool = False
    #: the comparators scored on test (oneshot: no one-shot teacher call without it;
    #: cot_vote is the expensive one: 5 samples of up to 256 tokens per item)
    comparators: list[Comparator] = Field(default_factory=lambda: list(COMPARATORS))
    #: the gepa comparator's metric-call budget (none: matched to the probe and
    #: validation scorings of the build's own loop; paper 001's GEPA runs 3000)
    gepa_metric_calls: int | None = Field(default=None, ge=1)
    #: the parts of the harness the gepa comparator searches (compiler/gepa_variants.py)
    gepa_variant: GepaVariant = "prompt"

    @field_validator("comparators", mode="before")
    @classmethod
    def _comparator_list(cls, value: Any) -> Any:
        """A comma-separated string (the flag) or a list; "none" or "" for none."""
        if isinstance(value, str):
            value = [] if value.strip() in ("", "none") else [
                v.strip() for v in value.split(",") if v.strip()]
        if isinstance(value, list) and {"bare", "selected"} & set(value):
            raise ValueError("bare and the selection are always scored; name only "
                             + ", ".join(COMPARATORS + OPTIONAL_COMPARATORS))
        if isinstance(value, list) and len(set(value)) != len(value):
            raise ValueError("a comparator is named twice")
        return value

    @property
    def sizes(self) -> dict[str, int]:
        return {"probe": self.probe, "validation": self.validation, "test": self.test}


def _config(fields: Any, where: str, base: Path | None = None) -> CompileConfig:
    config = strict_model(CompileConfig, fields, where, what="compile fields",
                    hint="fields: " + ", ".join(CompileConfig.model_fields))
    return _with_data_spec(config, base)


def _with_data_spec(config: CompileConfig, base: Path | None) -> CompileConfig:
    """A data setting's spec made absolute with its metric in it, so the stored config
    names the same file and metric wherever the build is resumed or reported from."""
    if config.setting.partition(":")[0] not in DATA_FORMATS:
        if config.metric is not None:
            raise ConfigError(f"--metric applies to data settings (jsonl:, csv:, hf:, parquet:), "
                              f"not {config.setting!r}",
                              hint="a registered setting has its own metric")
        return config
    spec = canonical_spec(config.setting, base=base, metric=config.metric)
    return config.model_copy(update={"setting": spec, "metric": None})


def stored_config(fields: dict[str, Any], where: str) -> CompileConfig:
    """A compile's stored config, checked as a config given by hand is."""
    return _config(fields, where)


def load_compile_config(path: str | Path, **overrides: Any) -> CompileConfig:
    """The config in a TOML (or JSON) file, with `overrides` (flags given) on top."""
    data = read_config(path, what="a compile config file (TOML)")
    fields = data.get("compile", data) if isinstance(data, dict) else data
    if isinstance(fields, dict):
        fields = {**fields, **{k: v for k, v in overrides.items() if v is not None}}
    return _config(fields, str(path), base=Path(path).parent)


def config_from_fields(**fields: Any) -> CompileConfig:
    return _config({k: v for k, v in fields.items() if v is not None}, "tether compile")
