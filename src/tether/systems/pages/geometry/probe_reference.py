"""The reference probe: the study's DOM-geometry rules, exactly as geometry-probe.md says.

Its known weaknesses (ancestor clipping ignored, element boxes, pair counting,
order-dependent clustering) are kept on purpose: this profile exists so published
numbers can be reproduced. The default profile (probe_default.py) fixes them.

The probe returns `{W, H, defects: [{kind, elements, detail}]}` with one entry per
counted defect, so `len(defects)` is the study's n_defects.
"""

from __future__ import annotations

from tether.systems.pages.geometry.probe_common import COMMON_JS

PROBE_REFERENCE_JS = "(opts) => {\n" + COMMON_JS + r"""
  const W = window.innerWidth, H = window.innerHeight, EPS = 4, MINOVL = 6, TOL = 16;
  const web = !!opts.web;
  const defects = [];
  const hidden = (cs) => cs.visibility === 'hidden' || cs.display === 'none'
    || parseFloat(cs.opacity) === 0;
  const all = Array.from(document.querySelectorAll('*'));

  // Text elements: own direct text (textContent for SVG text/tspan), visible, non-empty box.
  const texts = [];
  for (const el of all) {
    const t = tagOf(el);
    if (t === 'script' || t === 'style' || t === 'defs') continue;
    const cs = getComputedStyle(el);
    if (hidden(cs)) continue;
    let own;
    if (t === 'text' || t === 'tspan') own = (el.textContent || '').trim();
    else own = Array.from(el.childNodes).filter((n) => n.nodeType === 3)
      .map((n) => n.textContent).join('').trim();
    if (!own) continue;
    const b = el.getBoundingClientRect();
    if (b.width === 0 || b.height === 0) continue;
    texts.push({el, t, b});
  }

  // 1. text_overlap, per unordered pair where neither contains the other.
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i], c = texts[j];
      if (a.el.contains(c.el) || c.el.contains(a.el)) continue;
      const ix = Math.min(a.b.right, c.b.right) - Math.max(a.b.left, c.b.left);
      const iy = Math.min(a.b.bottom, c.b.bottom) - Math.max(a.b.top, c.b.top);
      if (Math.min(ix, iy) >= MINOVL) {
        defects.push({kind: 'text_overlap', elements: [evidence(a.el, a.b), evidence(c.el, c.b)],
                      detail: {ix: r1(ix), iy: r1(iy)}});
      }
    }
  }

  // 2. out_of_bounds: pass A over text, pass B over shapes and images not yet seen.
  const inView = (b) => web ? (b.right > 0 && b.left < W)
    : (b.right > 0 && b.bottom > 0 && b.left < W && b.top < H);
  const crosses = (b) => web ? (b.right > W + EPS || b.left < -EPS)
    : (b.right > W + EPS || b.bottom > H + EPS || b.left < -EPS || b.top < -EPS);
  const seen = new Set();
  for (const x of texts) {
    if (inView(x.b) && crosses(x.b)) {
      seen.add(x.el);
      defects.push({kind: 'out_of_bounds', elements: [evidence(x.el, x.b)], detail: {W, H}});
    }
  }
  for (const el of all) {
    if (!SHAPES.has(tagOf(el)) || seen.has(el)) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden' || cs.display === 'none') continue;
    const b = el.getBoundingClientRect();
    if (b.width < 2 && b.height < 2) continue;
    if (inView(b) && crosses(b)) {
      defects.push({kind: 'out_of_bounds', elements: [evidence(el, b)], detail: {W, H}});
    }
  }

  // 3. overflow: HTML text beyond its first styled block-level ancestor.
  const BLOCKS = new Set(['block', 'flex', 'grid', 'inline-block']);
  for (const x of texts) {
    if (x.t === 'text' || x.t === 'tspan') continue;
    let box = null;
    for (let p = x.el.parentElement; p; p = p.parentElement) {
      const cs = getComputedStyle(p);
      if (!BLOCKS.has(cs.display)) continue;
      if (cs.borderStyle !== 'none' || cs.backgroundColor !== TRANSPARENT
          || cs.overflow !== 'visible') { box = p; break; }
    }
    if (!box) continue;
    const c = box.getBoundingClientRect(), b = x.b;
    if (b.left < c.left - EPS || b.top < c.top - EPS || b.right > c.right + EPS
        || b.bottom > c.bottom + EPS) {
      defects.push({kind: 'overflow', elements: [evidence(x.el, b), evidence(box, c)],
                    detail: {}});
    }
  }

  // 4. scrollbar: the document is larger than the canvas (web: only wider).
  const de = document.documentElement;
  const overW = de.scrollWidth - W, overH = de.scrollHeight - H;
  if (overW > 16 || (!web && overH > 16)) {
    defects.push({kind: 'scrollbar', elements: [], detail: {overW, overH: web ? 0 : overH}});
  }

  // 5. misalignment: outermost cards, greedy first-member clustering, spreads per group.
  const cand = [];
  for (const el of all) {
    if (CARD_SKIP.has(tagOf(el))) continue;
    const cs = getComputedStyle(el);
    if (hidden(cs)) continue;
    if (!(borderedSides(cs) >= 2 || cs.backgroundColor !== TRANSPARENT)) continue;
    const b = el.getBoundingClientRect();
    if (b.width < 80 || b.height < 30 || b.width > 0.72 * W || b.height > 0.88 * H) continue;
    cand.push({el, b});
  }
  const cards = cand.filter((c) => !cand.some((o) => o !== c && o.el.contains(c.el)));
  const check = (axis, keyOf, sizeOf, endOf, startOf, stopOf) => {
    const sorted = cards.slice().sort((p, q) => keyOf(p.b) - keyOf(q.b));
    const groups = [];
    for (const c of sorted) {
      const g = groups.find((grp) => Math.abs(keyOf(grp[0].b) - keyOf(c.b)) <= TOL);
      if (g) g.push(c); else groups.push([c]);
    }
    for (const g of groups) {
      if (g.length < 3) continue;
      const members = g.map((c) => evidence(c.el, c.b));
      const sizes = g.map((c) => sizeOf(c.b));
      const sizeLimit = Math.max(12, 0.06 * mean(sizes));
      if (spread(sizes) > sizeLimit) {
        defects.push({kind: 'misalignment', elements: members,
                      detail: {axis, criterion: 'size', spread: r1(spread(sizes)),
                               limit: r1(sizeLimit)}});
      }
      const ends = g.map((c) => endOf(c.b));
      if (spread(ends) > 14) {
        defects.push({kind: 'misalignment', elements: members,
                      detail: {axis, criterion: 'edge', spread: r1(spread(ends)), limit: 14}});
      }
      const along = g.slice().sort((p, q) => startOf(p.b) - startOf(q.b));
      const gaps = [];
      for (let i = 1; i < along.length; i++) {
        gaps.push(startOf(along[i].b) - stopOf(along[i - 1].b));
      }
      const gapLimit = Math.max(12, 0.35 * Math.abs(mean(gaps)));
      if (gaps.length >= 2 && spread(gaps) > gapLimit) {
        defects.push({kind: 'misalignment', elements: members,
                      detail: {axis, criterion: 'gap', spread: r1(spread(gaps)),
                               limit: r1(gapLimit)}});
      }
    }
  };
  check('row', (b) => b.top, (b) => b.width, (b) => b.bottom, (b) => b.left, (b) => b.right);
  check('column', (b) => b.left, (b) => b.height, (b) => b.right, (b) => b.top, (b) => b.bottom);

  return {W, H, defects};
}
"""
