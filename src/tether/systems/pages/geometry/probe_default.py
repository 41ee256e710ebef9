"""The default probe: the reference rules with their known weaknesses fixed.

What it changes, each answering a weakness listed in geometry-probe.md:
- Visibility is effective: `checkVisibility` with opacity and visibility, so a child
  of an opacity-0 or hidden parent is not measured (shapes included).
- Ancestor clipping is respected: every box is cut to the padding boxes of the
  `overflow`-clipping ancestors on its containing-block chain; fully clipped text
  (a carousel's off-screen slide) is not measured, partly clipped text is overflow.
- Text boxes are the Range client rects of the element's own text nodes (line
  boxes of the glyphs), not the element's box.
- Text overflowing its own fixed-size box (its glyphs past its own box, e.g.
  `white-space: nowrap` with an ellipsis) is overflow; text placed out of flow
  (absolute/fixed) is not overflow of its container (it is placed there on purpose;
  a collision it causes is an overlap).
- Each element is counted once per kind: overlapping text forms connected groups
  (one defect each, the pairs kept as evidence); out-of-bounds counts outermost
  elements; misaligned groups sharing cards are one defect.
- Clustering does not depend on element order: cards are grouped by parent, then into
  lines (keys within 16 px, or cross extents overlapping by half the larger card), so a
  card shifted out of its row is judged with its row; a pair of cards is judged only on
  a shift (equal cross size, start edges more than 14 px apart).
- The document scrollbar is not counted where the root clips that axis (the cut-off
  content is out_of_bounds instead).
- Cut-off content the reference never sees is out_of_bounds: painted boxes (cards,
  panels) crossing the canvas edge, and on a fixed canvas text left wholly outside it.
- A blocked network request is an `external_resource` defect (added by the instrument).
- Content hidden under an opaque element drawn over it is an `occlusion` (probe_occlusion.py),
  neither a text overlap of the hidden text nor a misalignment of the hidden card. On a
  web page, text in a fixed or sticky bar and text scrolling under it are no overlap.
- Cards placed by a CSS grid are judged on the offset alone: an item spanning two tracks
  (`grid-column: span 2`) is wider by design, not a size, edge or gap misalignment.
"""

from __future__ import annotations

from tether.systems.pages.geometry.probe_common import COMMON_JS
from tether.systems.pages.geometry.probe_occlusion import OCCLUSION_JS

PROBE_DEFAULT_JS = "(opts) => {\n" + COMMON_JS + r"""
  const W = window.innerWidth, H = window.innerHeight, EPS = 4, MINOVL = 6, TOL = 16;
  const web = !!opts.web;
  const defects = [];
  // Elements the reference rules would measure but this profile does not, and why
  // (read by the profile diff, never counted).
  const skipped = [];
  const skip = (el, reason) => skipped.push({selector: selectorOf(el), reason});
  const root = document.documentElement, body = document.body;
  const INF = 1e9;
  const visible = (el) => el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
  const rectOf = (b) => ({left: b.left, top: b.top, right: b.right, bottom: b.bottom});
  const cut = (a, c) => ({left: Math.max(a.left, c.left), top: Math.max(a.top, c.top),
    right: Math.min(a.right, c.right), bottom: Math.min(a.bottom, c.bottom)});
  const empty = (r) => r.right - r.left <= 0.5 || r.bottom - r.top <= 0.5;
  const asBox = (r) => ({left: r.left, top: r.top, width: r.right - r.left,
                         height: r.bottom - r.top});
  const clipCache = new Map();
  // The region an element can paint into: the padding boxes of the clipping
  // ancestors on its containing-block chain (html/body clip the viewport, not a box).
  const clipOf = (el) => {
    if (clipCache.has(el)) return clipCache.get(el);
    const r = {left: -INF, top: -INF, right: INF, bottom: INF};
    const h = {left: -INF, top: -INF, right: INF, bottom: INF};
    let pos = getComputedStyle(el).position;
    for (let p = el.parentElement; p && p !== body && p !== root; p = p.parentElement) {
      const cs = getComputedStyle(p);
      const containing = cs.position !== 'static' || cs.transform !== 'none'
        || cs.filter !== 'none' || /paint|layout|strict|content/.test(cs.contain);
      if (pos === 'fixed' && !(cs.transform !== 'none' || cs.filter !== 'none')) continue;
      if (pos === 'absolute' && !containing) continue;
      pos = cs.position;
      const clipX = cs.overflowX !== 'visible', clipY = cs.overflowY !== 'visible';
      if (!clipX && !clipY && tagOf(p) !== 'svg') continue;
      const b = p.getBoundingClientRect();
      const pad = tagOf(p) === 'svg' ? rectOf(b) : {left: b.left + p.clientLeft,
        top: b.top + p.clientTop, right: b.left + p.clientLeft + p.clientWidth,
        bottom: b.top + p.clientTop + p.clientHeight};
      // Scrollable ancestors hide content the reader can scroll to: they cut what is
      // visible (r) but only hidden/clip ones (h) make partly cut text a defect.
      const hardX = clipX && /hidden|clip/.test(cs.overflowX) || tagOf(p) === 'svg';
      const hardY = clipY && /hidden|clip/.test(cs.overflowY) || tagOf(p) === 'svg';
      if (clipX || tagOf(p) === 'svg') { r.left = Math.max(r.left, pad.left);
        r.right = Math.min(r.right, pad.right); }
      if (clipY || tagOf(p) === 'svg') { r.top = Math.max(r.top, pad.top);
        r.bottom = Math.min(r.bottom, pad.bottom); }
      if (hardX) { h.left = Math.max(h.left, pad.left); h.right = Math.min(h.right, pad.right); }
      if (hardY) { h.top = Math.max(h.top, pad.top); h.bottom = Math.min(h.bottom, pad.bottom); }
    }
    clipCache.set(el, {all: r, hard: h});
    return {all: r, hard: h};
  };
  const all = Array.from(document.querySelectorAll('*'));

  // Text elements: own text nodes' line boxes, cut to the clip region.
  const texts = [];
  for (const el of all) {
    const t = tagOf(el);
    if (t === 'script' || t === 'style' || t === 'defs' || t === 'title') continue;
    const nodes = Array.from(el.childNodes).filter((n) => n.nodeType === 3 && n.textContent.trim());
    if (!nodes.length) continue;
    if (!visible(el)) { skip(el, 'invisible'); continue; }
    const raw = [];
    for (const n of nodes) {
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const rr of range.getClientRects()) {
        if (rr.width > 0 && rr.height > 0) raw.push(rectOf(rr));
      }
    }
    if (!raw.length) {
      const b = el.getBoundingClientRect();
      if (b.width > 0 && b.height > 0) raw.push(rectOf(b));
    }
    if (!raw.length) continue;
    const clip = clipOf(el);
    // An element that clips its own overflow (an ellipsis) shows only what fits its
    // padding box: the hidden rest can overlap nothing (own_box overflow reports it).
    const ecs = getComputedStyle(el);
    let shown = clip.all;
    if (ecs.overflowX !== 'visible' || ecs.overflowY !== 'visible') {
      const eb = el.getBoundingClientRect();
      const pad = {left: eb.left + el.clientLeft, top: eb.top + el.clientTop,
        right: eb.left + el.clientLeft + el.clientWidth,
        bottom: eb.top + el.clientTop + el.clientHeight};
      shown = cut(shown, {left: ecs.overflowX !== 'visible' ? pad.left : -INF,
        right: ecs.overflowX !== 'visible' ? pad.right : INF,
        top: ecs.overflowY !== 'visible' ? pad.top : -INF,
        bottom: ecs.overflowY !== 'visible' ? pad.bottom : INF});
    }
    const cutRects = raw.map((r) => cut(r, shown));
    // Partly clipped: some glyph box loses more than EPS px to a hidden/clip ancestor.
    const clipped = raw.some((r) => {
      const c = cut(r, clip.hard);
      return !empty(c) && (c.left - r.left > EPS || r.right - c.right > EPS
        || c.top - r.top > EPS || r.bottom - c.bottom > EPS);
    });
    const rects = cutRects.filter((r) => !empty(r));
    if (!rects.length) { skip(el, 'clipped'); continue; }  // deliberately hidden
    const union = (rs) => rs.reduce((u, r) => ({left: Math.min(u.left, r.left),
      top: Math.min(u.top, r.top), right: Math.max(u.right, r.right),
      bottom: Math.max(u.bottom, r.bottom)}));
    texts.push({el, t, rects, ink: union(raw), vis: union(rects), clipped});
  }
  const ev = (x, r) => evidence(x.el, asBox(r || x.vis));
""" + OCCLUSION_JS + r"""
  // 1. text_overlap: connected groups of text whose visible line boxes intersect.
  const overlapOf = (a, c) => {
    let best = -INF;
    for (const p of a.rects) for (const q of c.rects) {
      const ix = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const iy = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      best = Math.max(best, Math.min(ix, iy));
    }
    return best;
  };
  const pinnedOf = (el) => {
    for (let p = el; p && p !== root; p = p.parentElement) {
      const pos = getComputedStyle(p).position;
      if (pos === 'fixed' || pos === 'sticky') return p;
    }
    return null;
  };
  const parent = texts.map((_, i) => i);
  const find = (i) => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const pairs = [];
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i], c = texts[j];
      if (a.vis.right <= c.vis.left || c.vis.right <= a.vis.left || a.vis.bottom <= c.vis.top
          || c.vis.bottom <= a.vis.top) continue;
      if (a.el.contains(c.el) || c.el.contains(a.el)) continue;
      // hidden text is an occlusion, not an overlap: the reader sees one of the two
      if (isCovered(a.el) || isCovered(c.el)) continue;
      // on a web page, text in a fixed or sticky bar passes over the text scrolling
      // under it: where they meet depends on the scroll, not on the layout
      if (web && !pinnedOf(a.el) !== !pinnedOf(c.el)) continue;
      const ov = overlapOf(a, c);
      if (ov >= MINOVL) { pairs.push([i, j, r1(ov)]); parent[find(i)] = find(j); }
    }
  }
  const groups = new Map();
  for (const [i, j, ov] of pairs) {
    const g = find(i);
    if (!groups.has(g)) groups.set(g, {members: new Set(), pairs: []});
    groups.get(g).members.add(i).add(j);
    groups.get(g).pairs.push([selectorOf(texts[i].el), selectorOf(texts[j].el), ov]);
  }
  for (const g of groups.values()) {
    defects.push({kind: 'text_overlap', elements: Array.from(g.members).sort((a, b) => a - b)
      .map((i) => ev(texts[i])), detail: {pairs: g.pairs}});
  }

  // 2. out_of_bounds: the outermost visible elements crossing a canvas edge. Besides
  // text and shapes, painted boxes (a background or >= 2 borders: cards, panels) count,
  // and on a fixed canvas so does text left wholly outside it (cut-off content), unless
  // it sits far off-screen on purpose (the left:-9999px idiom).
  const inView = (b) => web ? (b.right > 0 && b.left < W)
    : (b.right > 0 && b.bottom > 0 && b.left < W && b.top < H);
  const crosses = (b) => web ? (b.right > W + EPS || b.left < -EPS)
    : (b.right > W + EPS || b.bottom > H + EPS || b.left < -EPS || b.top < -EPS);
  const near = (b) => b.left > -W && b.right < 2 * W && b.top > -H && b.bottom < 2 * H;
  const outs = [];
  for (const x of texts) {
    if ((inView(x.vis) && crosses(x.vis)) || (!web && !inView(x.vis) && near(x.vis))) {
      outs.push({el: x.el, b: x.vis});
    }
  }
  const textEls = new Set(texts.map((x) => x.el));
  const painted = (cs) => borderedSides(cs) >= 2 || cs.backgroundColor !== TRANSPARENT
    || cs.backgroundImage !== 'none';
  for (const el of all) {
    if (textEls.has(el) || el === root || el === body) continue;
    const shape = SHAPES.has(tagOf(el));
    if (!shape && (CARD_SKIP.has(tagOf(el)) || !painted(getComputedStyle(el)))) continue;
    if (!visible(el)) { if (shape) skip(el, 'invisible'); continue; }
    const raw = el.getBoundingClientRect();
    if (raw.width < 2 && raw.height < 2) continue;
    const b = cut(rectOf(raw), clipOf(el).all);
    if (!empty(b) && inView(b) && crosses(b)) outs.push({el, b});
    else if (shape && inView(raw) && crosses(raw)) skip(el, 'clipped');
  }
  for (const o of outs) {
    if (outs.some((p) => p !== o && p.el.contains(o.el))) continue;
    defects.push({kind: 'out_of_bounds', elements: [evidence(o.el, asBox(o.b))],
                  detail: {W, H}});
  }

  // 3. overflow: text beyond its styled container, cut by a clipping ancestor, or
  // wider/taller than its own fixed-size box.
  const BLOCKS = new Set(['block', 'flex', 'grid', 'inline-block', 'inline-flex',
    'inline-grid', 'list-item', 'table-cell']);
  for (const x of texts) {
    if (x.t === 'text' || x.t === 'tspan') continue;
    let reason = null, box = null;
    const cs = getComputedStyle(x.el);
    // Own box: the element's glyphs run past its own box (nowrap in a fixed width,
    // an ellipsis, a fixed height). Compared with the text itself, not scrollWidth,
    // so an overflowing child element does not count against the text.
    const own = x.el.getBoundingClientRect();
    const wide = x.ink.right > own.right + EPS || x.ink.left < own.left - EPS;
    const tall = x.ink.bottom > own.bottom + EPS || x.ink.top < own.top - EPS;
    let axis = null;
    if (BLOCKS.has(cs.display) && (wide || tall)) {
      reason = 'own_box'; box = x.el;
      // The axis decides the fix: too wide wants wrapping, too tall wants height.
      axis = wide && tall ? 'both' : (wide ? 'horizontal' : 'vertical');
    } else if (x.clipped) {
      reason = 'clipped';
    } else {
      // html and body are the canvas, not containers: text past them is out_of_bounds.
      // Text placed out of flow (absolute/fixed, e.g. a value label above its bar) is
      // positioned on purpose; collisions it causes are overlaps, not overflow.
      let placed = cs.position === 'absolute' || cs.position === 'fixed';
      for (let p = x.el.parentElement; p && p !== root && p !== body; p = p.parentElement) {
        const pcs = getComputedStyle(p);
        if (BLOCKS.has(pcs.display) && (pcs.borderStyle !== 'none'
            || pcs.backgroundColor !== TRANSPARENT || pcs.overflow !== 'visible')) {
          box = p; break;
        }
        placed = placed || pcs.position === 'absolute' || pcs.position === 'fixed';
      }
      if (placed && box) {
        const c = box.getBoundingClientRect(), b = x.ink;
        if (b.left < c.left - EPS || b.top < c.top - EPS || b.right > c.right + EPS
            || b.bottom > c.bottom + EPS) skip(x.el, 'placed');
        box = null;
      }
      if (box) {
        const c = box.getBoundingClientRect(), b = x.ink;
        if (b.left < c.left - EPS || b.top < c.top - EPS || b.right > c.right + EPS
            || b.bottom > c.bottom + EPS) reason = 'container';
        else box = null;
      }
    }
    if (!reason) continue;
    const elements = [ev(x, x.ink)];
    if (box && box !== x.el) elements.push(evidence(box));
    defects.push({kind: 'overflow', elements, detail: {reason, axis: axis || undefined,
      scroll: reason === 'own_box' ? [Math.round(x.ink.right - x.ink.left),
        Math.round(own.width)] : undefined,
      scroll_y: reason === 'own_box' ? [Math.round(x.ink.bottom - x.ink.top),
        Math.round(own.height)] : undefined}});
  }

  // 4. scrollbar: the document is larger than the canvas in an axis the root scrolls.
  const rootCs = getComputedStyle(root), bodyCs = getComputedStyle(body || root);
  const scrolls = (axis) => {
    const r = rootCs['overflow' + axis], b = bodyCs['overflow' + axis];
    const v = r !== 'visible' ? r : b;  // body's overflow propagates when the root's is visible
    return v !== 'hidden' && v !== 'clip';
  };
  const overW = root.scrollWidth - W, overH = root.scrollHeight - H;
  if ((overW > 16 && scrolls('X')) || (!web && overH > 16 && scrolls('Y'))) {
    defects.push({kind: 'scrollbar', elements: [], detail: {overW, overH: web ? 0 : overH}});
  }

  // 5. misalignment: sibling cards grouped by key (order-independent), one defect per
  // set of bad groups that share cards.
  const cand = [];
  for (const el of all) {
    if (CARD_SKIP.has(tagOf(el)) || !visible(el)) continue;
    const cs = getComputedStyle(el);
    if (!(borderedSides(cs) >= 2 || cs.backgroundColor !== TRANSPARENT)) continue;
    const b = el.getBoundingClientRect();
    if (b.width < 80 || b.height < 30 || b.width > 0.72 * W || b.height > 0.88 * H) continue;
    cand.push({el, b});
  }
  // A covered card is an occlusion (reported above), not a card out of line.
  const cards = cand.filter((c) => !cand.some((o) => o !== c && o.el.contains(c.el))
                            && !isCovered(c.el));
  const bad = [];
  // Sibling cards share a line (a row, or a column) when their keys (tops, or lefts)
  // are within TOL of each other, or when their cross extents overlap by at least half
  // of the larger one: a card shifted 23 px down still sits in its row. Connected
  // components of that relation, so the grouping does not depend on element order.
  const sameLine = (p, q, keyOf, crossOf, crossEndOf) => {
    if (Math.abs(keyOf(p.b) - keyOf(q.b)) <= TOL) return true;
    const ovl = Math.min(crossEndOf(p.b), crossEndOf(q.b)) - Math.max(keyOf(p.b), keyOf(q.b));
    return ovl >= 0.5 * Math.max(crossOf(p.b), crossOf(q.b));
  };
  const lines = (sibs, keyOf, crossOf, crossEndOf) => {
    const seen = new Set(), groups = [];
    for (const c of sibs) {
      if (seen.has(c)) continue;
      const g = [c];
      seen.add(c);
      for (let i = 0; i < g.length; i++) {
        for (const o of sibs) {
          if (!seen.has(o) && sameLine(g[i], o, keyOf, crossOf, crossEndOf)) {
            seen.add(o); g.push(o);
          }
        }
      }
      groups.push(g);
    }
    return groups;
  };
  const check = (axis, keyOf, sizeOf, endOf, startOf, stopOf, crossOf) => {
    const byParent = new Map();
    for (const c of cards) {
      const k = c.el.parentElement;
      if (!byParent.has(k)) byParent.set(k, []);
      byParent.get(k).push(c);
    }
    for (const [parentEl, sibs] of byParent) {
      // A grid places its items on its tracks: an item spanning two of them is wider by
      // design, so only a card moved off its place (offset) is out of line there.
      const inGrid = !!parentEl && /grid/.test(getComputedStyle(parentEl).display);
      for (const g of lines(sibs, keyOf, crossOf, endOf)) {
        if (g.length < 2) continue;
        // Shifted: cards of one cross size whose start edges disagree (one card moved).
        const shifted = spread(g.map((c) => keyOf(c.b))) > 14
          && spread(g.map((c) => crossOf(c.b))) <= 12;
        // A pair is judged on that alone: two cards of unequal size or height side by
        // side (a sidebar and its main panel) are a common deliberate layout.
        if (g.length === 2 || inGrid) {
          if (shifted) bad.push({axis, reasons: ['offset'], members: new Set(g.map((c) => c.el))});
          continue;
        }
        const reasons = [];
        if (shifted) reasons.push('offset');
        const sizes = g.map((c) => sizeOf(c.b));
        if (spread(sizes) > Math.max(12, 0.06 * mean(sizes))) reasons.push('size');
        if (spread(g.map((c) => endOf(c.b))) > 14) reasons.push('edge');
        const along = g.slice().sort((p, q) => startOf(p.b) - startOf(q.b));
        const gaps = [];
        for (let i = 1; i < along.length; i++) {
          gaps.push(startOf(along[i].b) - stopOf(along[i - 1].b));
        }
        if (gaps.length >= 2 && spread(gaps) > Math.max(12, 0.35 * Math.abs(mean(gaps)))) {
          reasons.push('gap');
        }
        if (reasons.length) bad.push({axis, reasons, members: new Set(g.map((c) => c.el))});
      }
    }
  };
  check('row', (b) => b.top, (b) => b.width, (b) => b.bottom, (b) => b.left, (b) => b.right,
        (b) => b.height);
  check('column', (b) => b.left, (b) => b.height, (b) => b.right, (b) => b.top, (b) => b.bottom,
        (b) => b.width);
  const merged = [];
  for (const g of bad) {
    const hit = merged.filter((m) => Array.from(g.members).some((el) => m.members.has(el)));
    const into = {members: new Set(g.members), findings: [{axis: g.axis, reasons: g.reasons}]};
    for (const m of hit) {
      m.members.forEach((el) => into.members.add(el));
      into.findings.push(...m.findings);
      merged.splice(merged.indexOf(m), 1);
    }
    merged.push(into);
  }
  for (const m of merged) {
    const els = cards.filter((c) => m.members.has(c.el));
    defects.push({kind: 'misalignment', elements: els.map((c) => evidence(c.el, c.b)),
                  detail: {findings: m.findings}});
  }

  return {W, H, defects, skipped};
}
"""
