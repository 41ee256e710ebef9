"""The default probe's occlusion rule: content hidden under something painted over it.

A card or a text a reader cannot see because another element is drawn on top of it is
its own defect kind, `occlusion`, not a misalignment of the cards or an overlap of the
texts: what is wrong is that the content is hidden, and the fix is to give it a place of
its own. It is found by hit testing, the browser's own answer to "what is drawn here":
points spread over the element's visible box are asked `elementFromPoint`; a point is
covered when what is drawn there is outside the element, is not one of its ancestors,
and paints an opaque surface between itself and the ancestor the two share (a background
with alpha >= 0.5, a background image, or replaced content such as an image), at an
effective opacity of at least 0.5. A text over a card's background is not covered (the
card is its ancestor); a transparent wrapper laid over content covers nothing.

Only what the reader sees first is checked: points inside the viewport at scroll 0 (the
whole canvas of a figure or slide; the first screen of a web page). On a web page a bar
that is `position: fixed` or `sticky` covers nothing: content scrolls under it by design
and out from under it as the reader scrolls (on a fixed canvas nothing scrolls, so there
it does cover). For the duration of
the check every element takes pointer events (a style added and removed again), so an
element made click-through with `pointer-events: none` is still seen where it is drawn;
no layout property changes.

Text pasted into PROBE_DEFAULT_JS after the text and card collection: it reads `texts`,
`all`, `visible`, `cut`, `clipOf`, `rectOf`, `empty`, `asBox`, `skip`, `W`, `H`, `web`,
`root`, `body` and adds
`covered` (elements found hidden) and the `occlusion` defects.
"""

from __future__ import annotations

OCCLUSION_JS = r"""
  // 0. occlusion: content hidden under an opaque element drawn over it.
  const COVERED = 0.5;  // share of an element's sample points that must be hidden
  const REPLACED = new Set(['img', 'video', 'canvas', 'iframe', 'svg', 'picture', 'object',
    'embed', 'input', 'select', 'textarea', 'button']);
  const alphaOf = (c) => {
    const m = /rgba?\(([^)]*)\)/.exec(c || '');
    if (!m) return c && c !== 'transparent' ? 1 : 0;
    const parts = m[1].split(/[\s,/]+/).filter(Boolean);
    return parts.length > 3 ? parseFloat(parts[3]) : 1;
  };
  const paints = (el) => {
    const cs = getComputedStyle(el);
    return REPLACED.has(tagOf(el)) || alphaOf(cs.backgroundColor) >= 0.5
      || cs.backgroundImage !== 'none';
  };
  // The outermost element of `hit`'s chain below the ancestor it shares with `el`, when
  // that chain paints an opaque surface over `el`; else null.
  // On a web page a fixed or sticky bar covers what scrolls under it by design (the
  // reader scrolls it out): only a fixed canvas (figure, slide) counts it.
  const coverOf = (hit, el) => {
    if (!hit || hit === el || el.contains(hit) || hit.contains(el)) return null;
    let opacity = 1, painted = false, outer = hit;
    for (let p = hit; p && !p.contains(el); p = p.parentElement) {
      const cs = getComputedStyle(p);
      if (web && (cs.position === 'fixed' || cs.position === 'sticky')) return null;
      opacity *= parseFloat(cs.opacity);
      painted = painted || paints(p);
      outer = p;
    }
    return painted && opacity >= 0.5 ? outer : null;
  };
  const grid = (r, n) => {
    const pts = [];
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
      pts.push([r.left + (r.right - r.left) * (i + 0.5) / n,
                r.top + (r.bottom - r.top) * (j + 0.5) / n]);
    }
    return pts;
  };
  const screen = {left: 0, top: 0, right: W, bottom: H};
  const hiding = (el, points) => {
    let seen = 0, hidden = 0;
    const by = new Map();
    for (const [x, y] of points) {
      if (x < 0 || y < 0 || x >= W || y >= H) continue;
      seen += 1;
      const cover = coverOf(document.elementFromPoint(x, y), el);
      if (cover) { hidden += 1; by.set(cover, (by.get(cover) || 0) + 1); }
    }
    if (!seen || hidden / seen < COVERED) return null;
    const top = Array.from(by.entries()).sort((a, b) => b[1] - a[1])[0][0];
    return {cover: top, share: Math.round(100 * hidden / seen) / 100};
  };
  const covered = new Set();
  const occlusions = [];
  const clickable = document.createElement('style');
  clickable.textContent = '* { pointer-events: auto !important; }';
  (document.head || root).appendChild(clickable);
  try {
    // Cards first (painted boxes), then texts not inside a card found hidden.
    for (const el of all) {
      if (CARD_SKIP.has(tagOf(el)) || el === root || el === body || !visible(el)) continue;
      const cs = getComputedStyle(el);
      if (!(borderedSides(cs) >= 2 || cs.backgroundColor !== TRANSPARENT)) continue;
      const raw = el.getBoundingClientRect();
      if (raw.width < 40 || raw.height < 20) continue;
      const b = cut(cut(rectOf(raw), clipOf(el).all), screen);
      if (empty(b)) continue;
      if (Array.from(covered).some((c) => c.contains(el))) continue;
      const found = hiding(el, grid(b, 4));
      if (found) { covered.add(el); occlusions.push({el, b, ...found}); }
    }
    for (const x of texts) {
      if (Array.from(covered).some((c) => c.contains(x.el))) continue;
      const points = [];
      for (const r of x.rects) {
        const y = (r.top + r.bottom) / 2;
        for (const f of [0.2, 0.5, 0.8]) points.push([r.left + (r.right - r.left) * f, y]);
      }
      const found = hiding(x.el, points);
      if (found) { covered.add(x.el); occlusions.push({el: x.el, b: x.vis, ...found}); }
    }
  } finally {
    clickable.remove();
  }
  for (const o of occlusions) {
    skip(o.el, 'occluded');
    const c = o.cover.getBoundingClientRect();
    defects.push({kind: 'occlusion', elements: [evidence(o.el, asBox(o.b)), evidence(o.cover, c)],
                  detail: {share: o.share}});
  }
  const isCovered = (el) => Array.from(covered).some((c) => c === el || c.contains(el));
"""
