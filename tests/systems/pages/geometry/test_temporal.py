"""Controlled time: the injected clock, seeked animations, identical repeated runs."""

from __future__ import annotations

from tether.studies.interaction_scaling.recorded_geometry import load_recorded
from tether.systems.pages.geometry.instrument import GeometryInstrument
from tether.systems.pages.geometry.temporal import CLOCK_JS, EPOCH_MS, advance_to

CLOCK_PAGE = """<div id="box" style="position:absolute; left:0; top:0; width:10px; height:10px;
  animation: slide 1000ms linear forwards"></div>
<style>@keyframes slide { to { transform: translateX(1000px); } }</style>
<script>
  window.log = [];
  setTimeout(() => log.push(['timeout', performance.now()]), 250);
  let n = 0;
  const id = setInterval(() => { log.push(['interval', performance.now()]);
    if (++n === 3) clearInterval(id); }, 100);
  requestAnimationFrame((t) => log.push(['raf', t]));
  setTimeout(() => document.getElementById('box').animate(
    [{opacity: 1}, {opacity: 0}], {duration: 400, fill: 'forwards'}), 500);
</script>"""


def test_clock_runs_timers_frames_and_seeks_animations_exactly(browser_host):
    async def go():
        async with browser_host.page(800, 600, init_scripts=[CLOCK_JS]) as s:
            page = s.page
            await page.set_content(CLOCK_PAGE, wait_until="load")
            first = await page.evaluate("[performance.now(), Date.now(), log.length]")
            await advance_to(page, 300)
            mid = await page.evaluate("""() => [log.slice(),
                document.getElementById('box').getBoundingClientRect().left]""")
            await advance_to(page, 700)
            late = await page.evaluate("""() => [document.getElementById('box')
                .getBoundingClientRect().left, getComputedStyle(
                document.getElementById('box')).opacity, performance.now()]""")
            return first, mid, late
    first, mid, late = browser_host.run(go())
    assert first == [0, EPOCH_MS, 0]  # no virtual time passes while the page loads
    log, left = mid
    assert ["timeout", 250] in log and [e for e in log if e[0] == "interval"] == [
        ["interval", 100], ["interval", 200], ["interval", 300]]
    assert log[0][0] == "raf" and abs(log[0][1] - 1000 / 60) < 1e-6
    assert left == 300  # the CSS animation seeked to 300 ms of 1000 ms over 1000 px
    # at 700 ms: CSS animation at 700 px; the script animation born at 500 ms is 200 of 400 ms in
    assert late[0] == 700 and abs(float(late[1]) - 0.5) < 1e-6 and late[2] == 700


def test_default_profile_gives_identical_counts_on_repeated_runs(interaction_scaling_dir,
                                                                 browser_host):
    wanted = {("anc_chip_reflow", "rv"), ("anc_toast_stack", "rv"), ("anc_sort_rows", "ss"),
              ("anc_accordion", "ss"), ("anc_modal_open", "rv"), ("anc_carousel", "ss")}
    items = [a for a in load_recorded(interaction_scaling_dir, "animations")
             if (a.task_id, a.side) in wanted]
    assert len(items) == len(wanted)
    inst = GeometryInstrument(GeometryInstrument.Params(profile="default"), host=browser_host)
    batch = [(a.html, "animation", a.frames) for a in items]
    runs = [inst.measure_many(batch) for _ in range(2)]
    per_frame = [[o.raw["per_location"] for o in run] for run in runs]
    assert all(o.ok for run in runs for o in run)
    assert per_frame[0] == per_frame[1]
    messages = [[[(d.location, d.message) for d in o.defects] for o in run] for run in runs]
    assert messages[0] == messages[1]  # same defects, same boxes, not just the same counts
    # and not trivially: these animations do have defects at some frames
    assert sum(sum(p.values()) for p in per_frame[0]) > 0
