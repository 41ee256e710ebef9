"""External validation: the reference profile reproduces the study's recorded run-1 counts.

figures 40/40, slides 24/24 and web 40/40 artifacts exactly (web summed over both
widths); animations clean/not-clean 40/40 (their frames are wall-clock waits, as in
the study, so exact animation counts vary by a defect or two between runs).
"""

from __future__ import annotations

import pytest

from tether.studies.interaction_scaling.recorded_geometry import load_recorded
from tether.systems.pages.geometry.browser import BrowserHost
from tether.systems.pages.geometry.instrument import GeometryInstrument

pytestmark = [pytest.mark.slow, pytest.mark.browser]
# anc_drawer rv sits on a frame boundary (its 200 ms frame gives the recorded 1 defect
# in about half of the runs alone, the other half 0): 8 alone-runs make a false
# failure of a correct instrument ~0.4% likely instead of ~12% with 3.
RETRIES = 8


def _counts(host, items):
    inst = GeometryInstrument(GeometryInstrument.Params(profile="reference"), host=host)
    obs = inst.measure_many([(a.html, a.modality, a.frames) for a in items])
    errors = [f"{a.task_id}/{a.side}: {o.error}" for a, o in zip(items, obs, strict=True)
              if o.error]
    assert not errors, errors
    return [int(o.raw["n_defects"]) for o in obs]


@pytest.mark.parametrize("folder,expected", [("figures", 40), ("slides", 24), ("web", 40)])
def test_static_counts_match_run1_exactly(interaction_scaling_dir, browser_host, folder,
                                          expected):
    items = load_recorded(interaction_scaling_dir, folder)
    assert len(items) == expected
    got = _counts(browser_host, items)
    mismatches = [(a.task_id, a.side, n, a.run1_n_defects)
                  for a, n in zip(items, got, strict=True) if n != a.run1_n_defects]
    print(f"\n{folder}: {expected - len(mismatches)}/{expected} artifacts match run-1 counts "
          f"(sum {sum(got)} vs recorded {sum(a.run1_n_defects for a in items)})")
    assert mismatches == []


def test_animations_match_run1_clean_or_not(interaction_scaling_dir):
    items = load_recorded(interaction_scaling_dir, "animations")
    assert len(items) == 40
    # Frames are wall-clock waits, as in the study, so a loaded machine shifts them:
    # four at a time, and an artifact that disagrees is measured again on its own (the
    # study measured one page at a time), up to RETRIES times.
    host = BrowserHost(concurrency=4)

    def agrees(a, n):
        return (n == 0) == (a.run1_n_defects == 0)

    try:
        got = _counts(host, items)
        first = [a for a, n in zip(items, got, strict=True) if not agrees(a, n)]
        still = []
        for a in first:
            if not any(agrees(a, _counts(host, [a])[0]) for _ in range(RETRIES)):
                still.append(a)
    finally:
        host.close()
    print(f"\nanimations: {40 - len(first)}/40 clean/not-clean on the concurrent pass, "
          f"{40 - len(still)}/40 after re-measuring {[(a.task_id, a.side) for a in first]} "
          "alone")
    assert [(a.task_id, a.side) for a in still] == []
