"""Time under control: an injected clock for scripts, paused and seeked animations.

The clock is installed before any page script runs (a context init script). It
replaces Date, performance.now, setTimeout/setInterval and requestAnimationFrame
with a virtual clock that only moves when the instrument says so. Advancing runs
due timers in order and rAF callbacks at a fixed 60 Hz cadence, and after every
step pauses each new CSS animation, CSS transition and Web Animation
(`document.getAnimations()`), remembering the virtual time at which it appeared.
Measuring frame t then seeks every animation to `t - birth`. Nothing depends on
how fast the machine is, so two runs give the same counts.
"""

from __future__ import annotations

from typing import Any

#: virtual epoch for Date (2023-11-14T22:13:20Z): fixed so date-dependent text is too.
EPOCH_MS = 1_700_000_000_000

CLOCK_JS = r"""
(() => {
  if (window.__tetherClock) return;
  const RealDate = Date;
  const EPOCH = __EPOCH__, FRAME = 1000 / 60;
  let now = 0, seq = 0, rafSeq = 0;
  const timers = new Map();
  let rafs = new Map();
  const anims = new Map();
  const add = (fn, ms, args, every) => {
    const id = ++seq;
    const delay = Math.max(0, Number(ms) || 0);
    timers.set(id, {at: now + delay, order: id, fn, args, every});
    return id;
  };
  window.setTimeout = (fn, ms, ...args) => add(fn, ms, args, null);
  window.setInterval = (fn, ms, ...args) => add(fn, ms, args, Math.max(1, Number(ms) || 0));
  window.clearTimeout = window.clearInterval = (id) => { timers.delete(id); };
  window.requestAnimationFrame = (fn) => { const id = ++rafSeq; rafs.set(id, fn); return id; };
  window.cancelAnimationFrame = (id) => { rafs.delete(id); };
  performance.now = () => now;
  class VirtualDate extends RealDate {
    constructor(...a) { if (a.length === 0) super(EPOCH + now); else super(...a); }
    static now() { return EPOCH + now; }
  }
  window.Date = VirtualDate;
  const call = (fn, args) => {
    try { if (typeof fn === 'function') fn(...args); else (0, eval)(String(fn)); }
    catch (e) { console.error(e); }
  };
  // Promise continuations (`await`) of a callback must run at the callback's virtual
  // time, not after the whole advance: otherwise what they start (a CSS transition)
  // runs on real time until the next step, and counts depend on machine load.
  const flush = async () => { for (let i = 0; i < 64; i++) await null; };
  const catchAnimations = () => {
    for (const a of document.getAnimations()) {
      if (!anims.has(a)) { anims.set(a, now); a.pause(); }
    }
  };
  const runTimersUntil = async (t) => {
    // A bounded number of callbacks per step: a timer that re-arms itself at delay 0
    // would otherwise never let virtual time move.
    for (let budget = 100000; budget > 0; budget--) {
      let next = null;
      for (const [id, tm] of timers) {
        if (tm.at <= t && (!next || tm.at < next[1].at
            || (tm.at === next[1].at && tm.order < next[1].order))) next = [id, tm];
      }
      if (!next) return;
      const [id, tm] = next;
      now = Math.max(now, tm.at);
      if (tm.every) { tm.at += tm.every; tm.order = ++seq; } else timers.delete(id);
      call(tm.fn, tm.args);
      await flush();
      catchAnimations();
    }
  };
  const seekAll = () => {
    for (const [a, birth] of anims) {
      try {
        const rate = a.playbackRate || 1;
        if (rate > 0) a.currentTime = (now - birth) * rate;
      } catch (e) { /* an animation whose effect is gone */ }
    }
  };
  window.__tetherClock = {
    now: () => now,
    async advanceTo(target) {
      await flush();
      catchAnimations();
      while (now < target) {
        const tick = Math.min(target, (Math.floor(now / FRAME + 1e-9) + 1) * FRAME);
        await runTimersUntil(tick);
        now = tick;
        if (tick === target && Math.abs(tick / FRAME - Math.round(tick / FRAME)) > 1e-6) break;
        const callbacks = Array.from(rafs.values());
        rafs = new Map();
        for (const cb of callbacks) call(cb, [now]);
        await flush();
        catchAnimations();
      }
      await runTimersUntil(target);
      await flush();
      catchAnimations();
      seekAll();
      return now;
    },
    // Static pages: the settled layout (finite animations at their end).
    async settle(target) {
      await this.advanceTo(target);
      for (const a of anims.keys()) {
        try {
          const end = a.effect && a.effect.getComputedTiming().endTime;
          if (Number.isFinite(end)) a.currentTime = end;
        } catch (e) { /* ignore */ }
      }
      return now;
    },
  };
})();
""".replace("__EPOCH__", str(EPOCH_MS))


async def advance_to(page: Any, t_ms: float) -> None:
    """Move the page's virtual clock to t_ms and seek every animation there."""
    await page.evaluate("(t) => window.__tetherClock.advanceTo(t)", t_ms)


async def settle(page: Any, t_ms: float = 1000) -> None:
    """Run timers to t_ms, then put every finite animation at its end."""
    await page.evaluate("(t) => window.__tetherClock.settle(t)", t_ms)
