"""What `tether harness apply` deploys, and on what: the harness and the user's rows.

    harness, source = deployed_harness("build/")          # a compile's selection
    harness, source = deployed_harness("selected.json")   # or a harness file
    spec = data_spec_of("new.jsonl", harness)            # jsonl:/abs/new.jsonl[;metric=]
    setting = deploy_setting(spec, harness)               # every row checked to fit

A compile's run directory deploys its selected harness: the frozen selection's document,
checked against the hash it was recorded under (a store edited by hand is refused, never
deployed as something else). A compile with several builds has several selections: one
of them is passed as its file (`DIR/artifacts/HH/HASH.json`).

The rows fit the harness when each has the fields it uses: `id` and `question` (every
observation has them) and one field per resource the harness enables (its observation
field of that name). That rule, not the name of the setting the harness was compiled on,
decides: a row without one is a ConfigError naming the row and the field. The rows are
read with labels optional (settings/data.py): a row with `answer` is labelled and
scored, one without is answered only. Fields the harness does not use are not read, so
they may hold anything.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from tether.errors import ConfigError
from tether.runs import COMMAND_META, DB_NAME
from tether.systems.compile.compiler.run import COMMAND, CompileRun, is_old_build_dir
from tether.systems.compile.harness import Harness, load_harness
from tether.systems.compile.prompt_fields import BASE_FIELDS
from tether.systems.compile.settings import DATA_FORMATS, split_data_spec
from tether.systems.compile.settings.data import DataSetting, canonical_spec

__all__ = ["data_spec_of", "deploy_setting", "deployed_harness", "used_fields"]

#: a bare path's suffix -> the data format it is read as
_SUFFIXES = {".jsonl": "jsonl", ".csv": "csv", ".parquet": "parquet"}


def deployed_harness(path: str | Path) -> tuple[Harness, str]:
    """The harness `path` names and how to name where it came from: a harness file, or
    a compile's run directory (its selected harness; see the module docstring)."""
    root = Path(path)
    if str(path) in ("bare", "recipe") and not root.exists():
        # the two names `tether harness run` takes: a deployment needs a harness file
        raise ConfigError(f"harness {path!r}: apply deploys a harness file or a compile's "
                          "run directory", hint="`bare` and `recipe` are for tether harness "
                          "run --setting S; for data of your own, compile a harness first "
                          "(tether compile --setting jsonl:FILE ...)")
    if not root.is_dir():
        return load_harness(root), str(root)
    if is_old_build_dir(root):
        raise ConfigError(f"{root} is a build directory written by an earlier tether",
                          hint=f"pass its selected harness file: {root}/builds/0/"
                               "selected.json")
    if not (root / DB_NAME).is_file():
        raise ConfigError(f"{root} is neither a harness file nor a compile's run directory",
                          hint="pass a tether-harness/1 file, or the --out of a "
                               "`tether compile`")
    with CompileRun.read(root) as run:
        written = run.store.meta(COMMAND_META)
        if written != COMMAND:
            raise ConfigError(f"{root} is not a compile's run directory (written by "
                              f"`tether {written or 'run'}`)",
                              hint="pass the --out of a `tether compile`, or a harness file")
        chosen = [(k, run.build(k).selected()) for k in run.build_indices()]
    made = [(k, row) for k, row in chosen if row is not None]
    if not made:
        raise ConfigError(f"{root}: the compile has not frozen a selection yet",
                          hint=f"finish it first: tether compile --resume {root}")
    if len(made) > 1:
        files = ", ".join(_artifact(root, str(row["hash"])) for _, row in made)
        raise ConfigError(f"{root} holds {len(made)} builds, each with its own selection",
                          hint=f"pass one of them as a file: {files}")
    row = made[0][1]
    try:
        harness = Harness.model_validate(row["document"])
    except ValidationError as exc:  # records.Selected checked it: a defensive second look
        raise ConfigError(f"{root}: the selected harness is not a harness ({exc})") from None
    if harness.hash != row["hash"]:
        raise ConfigError(f"{root}: the selected harness's document hashes to "
                          f"{harness.hash[:12]}, not the {str(row['hash'])[:12]} it was "
                          "recorded as", hint="the run directory was edited: compile again")
    return harness, f"{root} (its selected harness)"


def _artifact(root: Path, harness_hash: str) -> str:
    return str(root / "artifacts" / harness_hash[:2] / f"{harness_hash}.json")


def used_fields(harness: Harness) -> list[str]:
    """The row fields the harness reads besides id and question: one per resource it
    enables (a data setting puts each under the resource's own name)."""
    return sorted(name for name, spec in harness.resources.items()
                  if spec and name not in BASE_FIELDS)


def data_spec_of(data: str, harness: Harness) -> str:
    """`--data` as a data setting spec with an absolute path: `FORMAT:PATH[;metric=M]`,
    or a bare path whose suffix names the format; the metric, when `data` names none,
    is the one the harness was compiled with (a data setting's), else exact."""
    fmt = data.partition(":")[0]
    if fmt not in DATA_FORMATS:
        suffix = Path(data).suffix.lower()
        if suffix not in _SUFFIXES:
            raise ConfigError(f"--data {data!r}: not a data spec",
                              hint="write jsonl:PATH, csv:PATH, hf:PATH or parquet:PATH "
                                   "(a path ending .jsonl, .csv or .parquet may go bare)")
        data = f"{_SUFFIXES[suffix]}:{data}"
    named = "metric=" in data.partition(":")[2]
    metric = None if named else _compiled_metric(harness)
    return canonical_spec(data, metric=metric)


def _compiled_metric(harness: Harness) -> str | None:
    if harness.setting.partition(":")[0] not in DATA_FORMATS:
        return None
    try:
        return split_data_spec(harness.setting, announce=False)[2]
    except ConfigError:
        return None  # a setting name that is no well-formed spec: the default metric


def deploy_setting(spec: str, harness: Harness) -> DataSetting:
    """The rows of a data spec (`data_spec_of`'s) as a setting the harness runs on, each
    checked to have the fields it uses (see the module docstring)."""
    fields = used_fields(harness)
    setting = DataSetting(spec, labels="optional", keep=frozenset(fields))
    for item in setting.items:
        missing = [f for f in fields if f not in item.data["fields"]]
        if missing:
            raise ConfigError(f"{setting.where(item)}: no field {missing[0]!r}, "
                              "which the harness uses",
                              hint="every row needs id, question and the fields of the "
                                   f"harness's resources: {', '.join(fields)}")
    return setting
