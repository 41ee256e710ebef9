"""The `geometry` instrument: DOM geometry (and, for animations, time) of rendered HTML.

Spec options: `geometry;profile=default|reference;modality=figure|slide|web|animation;
frames=0,1000,...;overlay=true;timeout_s=30;entrance_animations=ignore|count;
coordinates=false` (coordinates=false: feedback in the interaction-scaling study's form,
without coordinates). Without options the task decides: `task.data["modality"]` and
`task.data["frame_times_ms"]`. Score = number of defects (lower is better).
"""

from __future__ import annotations

import base64
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from tether import params
from tether.core import Artifact, Observation, Task
from tether.instruments import InstrumentEnv, register_instrument
from tether.systems.pages.geometry.browser import BrowserHost, get_browser_host
from tether.systems.pages.geometry.defects import format_geometry_feedback, observation_from
from tether.systems.pages.geometry.measure import PROBE_TIMEOUT_S, measure_html
from tether.systems.pages.geometry.overlay import pick_location, render_overlay
from tether.systems.pages.geometry.profiles import (
    get_profile,
    normalize_modality,
    parse_frames,
)


@register_instrument("geometry")
class GeometryInstrument:
    name: ClassVar[str] = "geometry"
    version = "1"  # the default; an instance names its profile's version too
    grounded: ClassVar[bool] = True
    #: lower scores are better (a defect count).
    higher_is_better = False

    class Params(params.Params):
        """Spec options (a `host`, shared by callers that build the instrument in code,
        is no option of a spec)."""

        profile: Annotated[str, params.checked(get_profile)] = Field(
            "default", description="the defect profile (thresholds)")
        modality: Annotated[str, params.checked(normalize_modality)] | None = Field(
            None, description="the page's modality (default: the task's)")
        frames: Annotated[str | list[float], params.checked(parse_frames)] | None = Field(
            None, description="frame times in ms for animated pages: '0,500' or a list")
        overlay: bool = Field(False, description="attach a PNG with the defects drawn")
        coordinates: bool = Field(True, description="give defect coordinates in feedback "
                                                    "(false: the study's form, without)")
        timeout_s: params.Seconds = Field(PROBE_TIMEOUT_S, description="seconds one "
                                          "viewport's measurement may take, loading "
                                          "included")
        entrance_animations: Literal["ignore", "count"] = Field(
            "ignore", description="static pages under the default profile: 'ignore' "
            "measures the page once its entrance animations have ended; 'count' also "
            "measures the first frame (t = 0) and reports what only it shows")

        @model_validator(mode="after")
        def _entrance_needs_controlled_time(self) -> GeometryInstrument.Params:
            if self.entrance_animations == "count" and not get_profile(
                    self.profile).controlled_time:
                raise ValueError("entrance_animations=count is an option of the default "
                                 "profile: the reference profile keeps the study's "
                                 "wall-clock waits (drop the option or use profile=default)")
            return self

    @staticmethod
    def feedback(obs: Observation) -> str:
        """Coordinates, viewports and a suggested fix per defect: what a layout fix needs
        (without coordinates when the observation says its instrument was asked so)."""
        if obs.passed:
            return f"{obs.instrument}: passed."
        return format_geometry_feedback(obs, coordinates=obs.raw.get("feedback_coordinates",
                                                                     True) is not False)

    def __init__(self, params: Params | None = None, *,
                 host: BrowserHost | None = None) -> None:
        self.params = p = params if params is not None else self.Params()
        # what the options name, resolved once
        self.profile = get_profile(p.profile)
        self.modality = normalize_modality(p.modality) if p.modality else None
        self.frames = parse_frames(p.frames)
        #: seconds one viewport's measurement may take
        self.timeout_s = float(p.timeout_s)
        #: measure static pages at t = 0 too (where entrance animations start)
        self.entrance = p.entrance_animations == "count"
        self.version = f"2+{self.profile.version}"
        self._host = host

    @property
    def host(self) -> BrowserHost:
        return self._host or get_browser_host()

    def resolve(self, task: Task | None) -> tuple[str, tuple[int, ...] | None]:
        """The modality and frames for a task (options win over the task's data)."""
        data = task.data if task else {}
        modality = self.modality or normalize_modality(str(data.get("modality", "figure")))
        frames = self.frames or parse_frames(data.get("frame_times_ms"))
        return modality, frames

    def observe(self, artifact: Artifact, task: Task, env: InstrumentEnv) -> Observation:
        modality, frames = self.resolve(task)
        obs = self.measure(artifact.text, modality, frames)
        if not self.params.coordinates:
            # feedback without coordinates (the study's form): the observation says so
            obs.raw["feedback_coordinates"] = False
        # `overlay` attaches a PNG with the defects drawn (raw `overlay_png_b64`; the run
        # store keeps it as a blob and the report shows it) to an observation with defects
        if self.params.overlay and obs.ok and obs.defects:
            try:
                png = self.overlay_png(artifact.text, modality, obs)
            except Exception as exc:  # noqa: BLE001 - the counts stand; only the picture failed
                obs.raw["overlay_error"] = f"{type(exc).__name__}: {exc}".splitlines()[0]
            else:
                obs.raw["overlay_png_b64"] = base64.b64encode(png).decode()
        return obs

    def overlay_png(self, html: str, modality: str, obs: Observation) -> bytes:
        """The page at the viewport/frame with the most defects, with them drawn."""
        vp, frame = pick_location(obs, modality)
        with tempfile.TemporaryDirectory(prefix="tether-overlay-") as tmp:
            out = Path(tmp) / "overlay.png"
            self.host.run(render_overlay(self.host, html, modality, self.profile, vp, frame,
                                         out, timeout_s=self.timeout_s))
            return out.read_bytes()

    def measure(self, html: str, modality: str, frames: tuple[int, ...] | None = None,
                base_dir: Path | None = None) -> Observation:
        """Measure one HTML string; any browser failure is an error observation.

        `base_dir`: serve the page's relative URLs from this folder (a page on disk);
        None, as for every artifact in a run, serves the document alone.
        """
        return self.measure_many([(html, modality, frames)], [base_dir])[0]

    def measure_many(self, items: Sequence[tuple[str, str, tuple[int, ...] | None]],
                     base_dirs: Sequence[Path | None] | None = None,
                     on_done: Callable[[], None] | None = None) -> list[Observation]:
        """Measure several artifacts concurrently in the shared browser.

        `base_dirs[i]` is item i's folder (see `measure`); by default none is served.
        Up to the host's `concurrency` artifacts are in flight at once, each in its own
        lane (lanes.py). `on_done` is called (on the browser's thread) as each finishes.
        """
        dirs = list(base_dirs) if base_dirs is not None else [None] * len(items)
        if len(dirs) != len(items):
            raise ValueError("base_dirs must have one entry per item")

        async def one(host: BrowserHost, item: Any) -> Any:
            (html, modality, frames), base_dir = item
            try:
                return await measure_html(host, html, modality, self.profile, frames, base_dir,
                                          timeout_s=self.timeout_s, entrance=self.entrance)
            finally:
                if on_done is not None:
                    on_done()
        try:
            host = self.host
            results = host.gather(lambda it: one(host, it), list(zip(items, dirs, strict=True)))
        except Exception as exc:  # noqa: BLE001 - browser missing or dead: every item errors
            results = [exc] * len(items)
        out = []
        for res in results:
            if isinstance(res, BaseException):
                hint = getattr(res, "hint", None)
                message = f"{type(res).__name__}: {res}".splitlines()[0]
                out.append(Observation(instrument=self.name, version=self.version, grounded=True,
                                       error=message + (f" (hint: {hint})" if hint else "")))
            else:
                out.append(observation_from(res, name=self.name, version=self.version,
                                            counts_external=self.profile.counts_external))
        return out
