"""JavaScript helpers shared by both probes: element evidence (selector, label, box).

Kept as Python strings so the probes ship with the package without package-data
configuration. Each probe is `(opts) => {...}` text with COMMON_JS pasted at its top.
"""

from __future__ import annotations

COMMON_JS = r"""
  const tagOf = (el) => el.tagName.toLowerCase();
  const r1 = (v) => Math.round(v * 10) / 10;
  const boxOf = (b) => ({x: r1(b.left), y: r1(b.top), w: r1(b.width), h: r1(b.height)});
  // A CSS selector path that finds the element again: ids where present, else
  // tag:nth-of-type steps up to the nearest id or the root.
  const selectorOf = (el) => {
    const parts = [];
    let node = el;
    while (node && node.nodeType === 1 && parts.length < 12) {
      const t = tagOf(node);
      if (node.id && /^[A-Za-z][\w-]*$/.test(node.id)) { parts.unshift(t + '#' + node.id); break; }
      const parent = node.parentElement;
      if (!parent) { parts.unshift(t); break; }
      const same = Array.from(parent.children).filter((c) => c.tagName === node.tagName);
      parts.unshift(same.length > 1 ? `${t}:nth-of-type(${same.indexOf(node) + 1})` : t);
      node = parent;
    }
    return parts.join(' > ');
  };
  const labelOf = (el) => (el.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 40);
  const evidence = (el, b) => ({selector: selectorOf(el), label: labelOf(el),
                                box: boxOf(b || el.getBoundingClientRect())});
  const spread = (xs) => Math.max(...xs) - Math.min(...xs);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const CARD_SKIP = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th', 'svg', 'g',
    'text', 'tspan', 'path', 'rect', 'circle', 'line', 'polygon', 'ellipse', 'html', 'body',
    'ul', 'ol', 'li', 'br', 'hr']);
  const SHAPES = new Set(['rect', 'circle', 'ellipse', 'polygon', 'line', 'path', 'text',
    'tspan', 'img']);
  const TRANSPARENT = 'rgba(0, 0, 0, 0)';
  const SIDES = ['Top', 'Right', 'Bottom', 'Left'];
  const borderedSides = (cs) => SIDES.filter((s) => cs['border' + s + 'Style'] !== 'none'
    && parseFloat(cs['border' + s + 'Width']) > 0).length;
"""
