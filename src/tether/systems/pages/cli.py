"""`tether measure`: the geometry instrument as a lint command for HTML artifacts.

A page is measured with its own folder: its relative URLs (stylesheets, images, fonts,
scripts below the page's folder) are served to the browser from the synthetic origin,
a missing one is a `missing_resource` defect, anything outside the folder or on the
network stays blocked (systems/pages/geometry/local_files.py).

Exit codes: 0 clean, 1 defects found, 2 usage or render error (a page that could
not be measured is never reported as clean). `--compare` lists where the default and
reference profiles disagree and why (exit 0, or 2 on a render error).
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from tether.cli import (
    GEOMETRY_MODALITIES as MODALITIES,
    GEOMETRY_PROFILES as PROFILES,
    esc,
    make_console,
)
from tether.errors import ConfigError

if TYPE_CHECKING:  # the instrument (and the browser) load when a page is measured
    from tether.core import Observation

console = make_console()
err_console = make_console(stderr=True)
#: pages in flight at once when --concurrency is not given. The reference profile's
#: waits (network idle + 80 ms, about 0.6 s a page) leave the CPU idle, so many pages
#: overlap them; the default profile has no wall-clock waits and is CPU-bound: one page
#: per core (on 2 cores, 2 lanes measured 14-16 artifacts/s, 3 or 4 lanes 11-12:
#: benchmarks/geometry_throughput.py).
DEFAULT_CONCURRENCY = {"reference": 16, "default": os.cpu_count() or 2}
#: a lane (a page with its own renderer) costs about 150 ms of CPU to open, one or two
#: reference-profile measurements: a batch gets at most one lane per this many pages
#: (64 recorded artifacts, reference profile, cold: 8 lanes 10.5/s, 12 lanes 11.7/s,
#: 16 lanes 11.5/s)
PAGES_PER_LANE = 5


def default_concurrency(profile: str, n_pages: int) -> int:
    """Pages in flight when --concurrency is not given, for a batch of n_pages."""
    return max(1, min(DEFAULT_CONCURRENCY[profile], -(-n_pages // PAGES_PER_LANE)))


def html_files(target: Path) -> list[Path]:
    """The file itself, or every .html/.htm file directly in the directory (sorted)."""
    if target.is_dir():
        files = sorted(p for p in target.iterdir()
                       if p.is_file() and p.suffix.lower() in (".html", ".htm"))
        if not files:
            raise ConfigError(f"no .html files in {target}",
                              hint="point at an HTML file or a folder that has some")
        return files
    return [target]


def read_pages(files: list[Path], one: bool) -> tuple[dict[Path, str], dict[Path, str]]:
    """(text of each page that is HTML, why each other file is not). A single file that
    is not HTML is refused outright (exit 2); in a folder it is a row of its own."""
    from tether.systems.pages.page_file import read_page

    texts: dict[Path, str] = {}
    refused: dict[Path, str] = {}
    for path in files:
        try:
            texts[path] = read_page(path)
        except ConfigError as exc:
            if one:
                raise
            refused[path] = str(exc).removeprefix(f"{path}: ")
    return texts, refused


def result_json(obs: Observation, profile: str, path: Path | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {} if path is None else {"path": str(path)}
    if obs.error:
        out.update(error=obs.error, profile=profile, instrument_version=obs.version)
        return out
    out.update(n_defects=int(obs.raw["n_defects"]), counts=obs.raw["counts"],
               defects=[d.model_dump() for d in obs.defects], profile=profile,
               instrument_version=obs.version)
    return out


def print_result(path: Path, obs: Observation) -> None:
    if obs.error:
        console.print(f"[bold red]{esc(path)}[/]: could not be measured: {esc(obs.error)}",
                      highlight=False)
        return
    n = len(obs.defects)
    if not n:
        console.print(f"[bold green]{esc(path)}[/]: clean ({obs.raw['modality']}, "
                      f"{obs.raw['profile']} profile)", highlight=False)
        return
    counts = ", ".join(f"{k} {v}" for k, v in obs.raw["counts"].items())
    # The heading is one unwrapped line (soft_wrap) so a long path never splits it: people
    # and scripts grep for "PATH: N defect(s)".
    console.print(f"[bold]{esc(path)}[/]: {n} defect(s) ({counts})", highlight=False)
    table = Table(show_lines=False)
    for col in ("kind", "where", "what", "suggested fix"):
        table.add_column(col, overflow="fold")
    by_kind: dict[str, list[Any]] = defaultdict(list)
    for d in obs.defects:
        by_kind[d.kind].append(d)
    for kind in sorted(by_kind):
        for i, d in enumerate(by_kind[kind]):
            table.add_row(kind if i == 0 else "", esc(d.location or ""), esc(d.message),
                          esc(d.evidence.get("suggested_fix", "")) if i == 0 else "",
                          end_section=i == len(by_kind[kind]) - 1)
    console.print(table)


def compare_profiles(files: list[Path], modality: str, frames: tuple[int, ...] | None,
                     as_json: bool, timeout_s: float, one: bool) -> int:
    """Print the default-vs-reference differences per file; exit 2 on a render error or a
    file that is no HTML page."""
    from tether.systems.pages.geometry.profile_diff import KindDiff, diff_profiles

    texts, refused = read_pages(files, one)
    pages = [p for p in files if p in texts]
    found = dict(zip(pages, diff_profiles([(texts[p], modality, frames) for p in pages],
                                          base_dirs=[p.parent for p in pages],
                                          timeout_s=timeout_s), strict=True))
    results: list[list[KindDiff] | str] = [found[p] if p in found else refused[p]
                                           for p in files]
    if as_json:
        click.echo(json.dumps([
            {"path": str(p), "error": r} if isinstance(r, str) else
            {"path": str(p), "differences": [
                {"kind": d.kind, "location": d.location, "reference": d.reference,
                 "default": d.default, "reasons": dict(d.reasons)} for d in r]}
            for p, r in zip(files, results, strict=True)], indent=2))
    else:
        for p, r in zip(files, results, strict=True):
            if isinstance(r, str):
                console.print(f"[bold red]{esc(p)}[/]: could not be measured: {esc(r)}",
                              highlight=False)
            elif not r:
                console.print(f"[bold]{esc(p)}[/]: the profiles agree", highlight=False)
            else:
                console.print(f"[bold]{esc(p)}[/]: {len(r)} difference(s)", highlight=False)
                for d in r:
                    console.print(f"  {d.describe()}", highlight=False, markup=False)
    return 2 if any(isinstance(r, str) for r in results) else 0


class ProgressBar:
    """A bar on stderr while several files are measured (not for one file, nor when
    stderr is not a terminal, so piped and --json output stay clean)."""

    def __init__(self, total: int) -> None:
        self.progress = Progress("measuring", BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=err_console, transient=True,
                                 disable=total < 2 or not err_console.is_terminal)
        self.task = self.progress.add_task("measure", total=total)

    def __enter__(self) -> Callable[[], None]:
        self.progress.start()
        # called from the browser's thread as each file finishes (rich locks its state)
        return lambda: self.progress.advance(self.task)

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


def overlay_path(overlay: Path, path: Path, many: bool) -> Path:
    if not many:
        return overlay
    overlay.mkdir(parents=True, exist_ok=True)
    return overlay / f"{path.stem}.png"


@click.command("measure")
@click.argument("target", type=click.Path(exists=True, path_type=Path))
@click.option("--modality", metavar="|".join(MODALITIES),
              help="canvas kind (the study's plural names work too) "
                   "[default: animation with --frames, else figure]")
@click.option("--profile", type=click.Choice(PROFILES), default="default",
              show_default=True, help="reference = the study's rules, for published numbers")
@click.option("--frames", help="animation frame times in ms, e.g. 0,1000,2000")
@click.option("--overlay", type=click.Path(path_type=Path),
              help="write a PNG with the defects drawn (a folder when TARGET is a folder)")
@click.option("--compare", is_flag=True,
              help="list where the default and reference profiles differ, and why")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
@click.option("--concurrency", type=click.IntRange(1, 64), metavar="N",
              help="pages measured at once "
                   f"[default: {DEFAULT_CONCURRENCY['reference']} for the reference profile, "
                   f"one per CPU core for default, at most one per {PAGES_PER_LANE} pages]")
@click.option("--timeout", "timeout_s", type=click.FloatRange(min=0, min_open=True),
              metavar="SECONDS", help="time one viewport's measurement may take, loading "
                                      "included [default: 30]")
@click.option("--entrance-animations", type=click.Choice(["ignore", "count"]),
              help="default profile: 'ignore' measures a page once its entrance animations "
                   "have ended; 'count' also measures it at t = 0 and reports what only "
                   "that first frame shows [default: ignore]")
def measure(target: Path, modality: str | None, profile: str, frames: str | None,
            overlay: Path | None, compare: bool, as_json: bool,
            concurrency: int | None, timeout_s: float | None,
            entrance_animations: str | None) -> None:
    """Measure the rendered layout of an HTML file (or every .html file in a folder).

    A file that is not text, or holds no HTML element, is refused (exit 2): in a folder
    its row says why and the other pages are measured."""
    from tether.core import Observation
    from tether.params import check_params
    from tether.systems.pages.geometry.browser import get_browser_host
    from tether.systems.pages.geometry.instrument import GeometryInstrument
    from tether.systems.pages.geometry.overlay import pick_location, render_overlay
    from tether.systems.pages.geometry.profiles import normalize_modality, parse_frames

    frame_times = parse_frames(frames)
    modality = normalize_modality(modality) if modality else (
        "animation" if frame_times else "figure")
    if frame_times and modality != "animation":
        raise ConfigError("--frames applies to animations only",
                          hint="add --modality animation or drop --frames")
    files = html_files(target)
    declared = GeometryInstrument.Params.model_validate({})  # the defaults, declared there
    if compare:
        sys.exit(compare_profiles(files, modality, frame_times, as_json,
                                  timeout_s or declared.timeout_s, one=not target.is_dir()))
    host = get_browser_host()  # started on first use, not here
    # the options checked against the instrument's declaration: one line when they clash
    options = check_params("tether measure", GeometryInstrument, {
        "profile": profile, "timeout_s": timeout_s or declared.timeout_s,
        "entrance_animations": entrance_animations or declared.entrance_animations})
    assert isinstance(options, GeometryInstrument.Params)
    instrument = GeometryInstrument(options, host=host)
    texts, refused = read_pages(files, one=not target.is_dir())
    host.set_concurrency(concurrency or default_concurrency(profile, max(1, len(texts))))
    measured = [p for p in files if p in texts]
    # each page is measured with its own folder served (its css, images, fonts, scripts)
    with ProgressBar(len(measured)) as advance:
        found = instrument.measure_many([(texts[p], modality, frame_times) for p in measured],
                                        [p.parent for p in measured], on_done=advance)
    by_path = dict(zip(measured, found, strict=True))
    observations = [by_path[p] if p in by_path else Observation(
        instrument=instrument.name, version=instrument.version, grounded=True,
        error=refused[p]) for p in files]
    overlays: dict[Path, str] = {}
    if overlay is not None:
        for path, obs in zip(files, observations, strict=True):
            if obs.error:
                continue
            out = overlay_path(overlay, path, target.is_dir())
            vp, frame = pick_location(obs, modality)
            try:
                instrument.host.run(render_overlay(instrument.host, texts[path], modality,
                                                   instrument.profile, vp, frame, out,
                                                   path.parent,
                                                   timeout_s=instrument.timeout_s))
            except Exception as exc:  # noqa: BLE001 - an overlay failure is a render error
                observations[files.index(path)] = obs.model_copy(
                    update={"error": f"overlay: {exc}"})
                continue
            overlays[path] = str(out)
    if as_json:
        rows = [dict(result_json(o, profile, p if target.is_dir() else None),
                     **({"overlay": overlays[p]} if p in overlays else {}))
                for p, o in zip(files, observations, strict=True)]
        if target.is_dir():
            click.echo(json.dumps({"n_defects": sum(r.get("n_defects", 0) for r in rows),
                                   "files": rows, "profile": profile}, indent=2))
        else:
            click.echo(json.dumps(rows[0], indent=2))
    else:
        for p, o in zip(files, observations, strict=True):
            print_result(p, o)
            if p in overlays:
                console.print(f"[dim]overlay: {esc(overlays[p])}[/]", highlight=False)
    if any(o.error for o in observations):
        sys.exit(2)
    sys.exit(1 if any(o.defects for o in observations) else 0)
