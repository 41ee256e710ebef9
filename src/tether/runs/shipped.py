"""The experiments tether ships, by name: `tether run humaneval`, `tether experiments list`.

They are the TOML files of `src/tether/experiments/` (package data, so they are in the
wheel): the name of one is its file's stem. A config argument is read as a path first;
only a path that does not exist is looked up among the shipped names, so a file of the
user's always wins over a shipped experiment of the same name.
"""

from __future__ import annotations

from pathlib import Path

from tether.errors import ConfigError, did_you_mean

#: where the shipped experiments live inside the installed package
SHIPPED_DIR = Path(__file__).resolve().parent.parent / "experiments"


def shipped_experiments() -> dict[str, Path]:
    """Every shipped experiment, name -> file, sorted by name."""
    if not SHIPPED_DIR.is_dir():
        return {}
    return {p.stem: p for p in sorted(SHIPPED_DIR.glob("*.toml"))}


def header_summary(path: Path) -> str:
    """The first sentence of the file's header comment (what it runs), as one line;
    indented comment lines (the commands a header shows) are left out."""
    lines: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        body = line[1:]
        if body.startswith("  "):  # a command or a list the header shows
            if lines:
                break
            continue
        if not body.strip():
            if lines:
                break
            continue
        lines.append(body.strip())
    text = " ".join(lines).rstrip(":")
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


def shipped_name(arg: str) -> str | None:
    """The shipped experiment a config argument names, or None. `humaneval`,
    `humaneval.toml` and the checkout path of old docs, `experiments/humaneval.toml`,
    all name the same one."""
    p = Path(arg)
    if p.parent not in (Path("."), Path("experiments")):
        return None
    name = p.stem if p.suffix == ".toml" else p.name
    return name if name in shipped_experiments() else None


def config_path(arg: str | Path) -> Path:
    """The file a config argument means: the path itself when it exists, else the shipped
    experiment it names; ConfigError (with a hint) when it is neither."""
    p = Path(arg)
    if p.is_file() or (p.exists() and not p.is_dir()):
        return p  # a FIFO or a device too: the reader refuses it in one line, by kind
    name = shipped_name(str(arg))
    if name is not None:
        return shipped_experiments()[name]
    if p.is_dir():
        raise ConfigError(f"{p} is a directory, not an experiment config",
                          hint="pass an experiment TOML file, or --resume RUN_DIR to "
                               "continue a run")
    hint = did_you_mean(p.stem, shipped_experiments())
    raise ConfigError(f"config file not found: {p}",
                      hint=hint + "pass an experiment TOML file, a run's "
                                  "config.resolved.json, or the name of a shipped experiment "
                                  "(tether experiments list)")


__all__ = ["SHIPPED_DIR", "config_path", "header_summary", "shipped_experiments", "shipped_name"]
