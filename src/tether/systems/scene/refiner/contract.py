"""Valid_h: the one acceptance contract, for a fresh trial and for reusing the raw record.

valid(candidate, execution) runs every check and returns (ok, checks); each check is
{"ok": bool, ...values}. The reference is the candidate's (raw for recovery, previous
delivered for projection). Checks:
- executed: the execution succeeded.
- render: its render decodes as the scene metrics read renders.
- endpoints: every required endpoint agrees (≃) with what the execution realized;
  an unobserved value fails.
- preservation: every captured reference cell not written keeps its reference value
  (per component for component writes); a cell missing from the execution fails.
- frames: the object transforms among those (reported on their own: protected frames).
- structure: objects (type, parent, modifiers), mesh counts and bounds, node links of
  every reference holder unchanged; a permitted copy equals its original.
- bindings: every reference binding points where it did, except the permitted
  (object, binding) pairs, which must point to a block the reference did not have.
- scope: no block appeared except the permitted copies, none disappeared, and a copy's
  cells other than its endpoints equal its original's.
- render_context: no render override other than the executor's own switch to Cycles
  (engine, size, samples and seed are the executor's; the camera's frame and data are
  cells, checked by preservation).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tether.systems.scene.executor import Execution
from tether.systems.scene.patch import parse_cell
from tether.systems.scene.refiner.candidate import (
    Candidate,
    binding_to,
    cell_key,
    observed,
    resolve,
)
from tether.systems.scene.refiner.spec import FRAME_PATHS, LIGHT_PROPS, agree
from tether.systems.scene.tasks import png_rgb

MAX_LISTED = 5  # mismatches listed per check (all are counted)


def readable(png: bytes | None) -> bool:
    """The render decodes as the scene metrics read renders (tasks.png_rgb)."""
    if not png:
        return False
    try:
        return png_rgb(png).size > 0
    except Exception:  # not a PNG, truncated, or no decoder: unreadable
        return False


def valid(c: Candidate, ex: Execution) -> tuple[bool, dict[str, Any]]:
    ref = c.reference.execution.state
    got = ex.state
    checks: dict[str, Any] = {
        "executed": {"ok": bool(ex.ok), "error": (ex.error or {}).get("kind")},
        "render": {"ok": readable(ex.render_png)},
    }
    checks["endpoints"] = _endpoints(c, got)
    if ref is None or got is None:
        unknown = {"ok": False, "reason": "state not observed"}
        for name in ("preservation", "frames", "structure", "bindings", "scope"):
            checks[name] = dict(unknown)
    else:
        new = _new_blocks(c, got)
        checks["preservation"], checks["frames"] = _preservation(c, ref, got)
        checks["structure"] = _structure(ref, got, new)
        checks["bindings"] = _bindings(c, ref, got)
        checks["scope"] = _scope(c, ref, got, new)
    # The executor fixes engine, size, samples and seed per render; the only override a
    # plain program gets is that engine switch. Anything else changed the render context.
    other = [o for o in ex.overrides if o.get("path") != "scene.render.engine"
             or o.get("to") != "CYCLES"]
    checks["render_context"] = {"ok": not other, "overrides": ex.overrides}
    return all(v["ok"] for v in checks.values()), checks


def _endpoints(c: Candidate, got: Mapping[str, Any] | None) -> dict[str, Any]:
    rows = []
    for e in c.endpoints:
        value = observed(got, e)
        where = resolve(got, e)
        rows.append({
            "cell": cell_key(*(where or e.block), e.path), "index": e.index, "owner": e.owner,
            "required": e.value, "observed": value, "ok": agree(value, e.value),
        })  # fmt: skip
    return {"ok": bool(rows) and all(r["ok"] for r in rows), "values": rows}


def _preservation(c: Candidate, ref: Mapping, got: Mapping) -> tuple[dict, dict]:
    whole = {k for k, i in c.written if i is None}
    parts: dict[str, set[int]] = {}
    for k, i in c.written:
        if i is not None:
            parts.setdefault(k, set()).add(i)
    bad, frames, checked = [], [], 0
    for key, want in ref["cells"].items():
        if key in whole:
            continue
        have = got["cells"].get(key)
        skip = parts.get(key, set())
        if skip and isinstance(want, list) and isinstance(have, list):
            ok = len(want) == len(have) and all(
                i in skip or agree(a, b) for i, (a, b) in enumerate(zip(want, have, strict=True)))
        else:
            ok = agree(have, want) or (want == have and not isinstance(want, float))
        checked += 1
        if not ok:
            row = {"cell": key, "reference": want, "observed": have}
            bad.append(row)
            if parse_cell(key)[0] == "objects" and parse_cell(key)[2] in FRAME_PATHS:
                frames.append(row)
    return ({"ok": not bad, "checked": checked, "changed": len(bad), "first": bad[:MAX_LISTED]},
            {"ok": not frames, "changed": len(frames), "first": frames[:MAX_LISTED]})


def _blocks(state: Mapping) -> set[tuple[str, str]]:
    out = {parse_cell(k)[:2] for k in state["cells"]}
    out |= {("meshes", m) for m in state["structure"]["meshes"]}
    out |= {tuple(b["to"]) for b in state["bindings"]}
    for coll, holders in state["structure"]["links"].items():
        out |= {(coll, h) for h in holders}
    return out


def _new_blocks(c: Candidate, got: Mapping) -> dict[tuple[str, str], tuple[str, str]]:
    """Permitted copies in the execution: new block -> its original in the reference."""
    ref = c.reference.execution.state
    assert ref is not None  # a reference is executed with its state captured
    out = {}
    for obj, path in c.copies:
        new, old = binding_to(got, obj, path), binding_to(ref, obj, path)
        if new is not None and old is not None:
            out[new] = old
    return out


def _structure(ref: Mapping, got: Mapping, new: dict) -> dict[str, Any]:
    bad = []
    if ref["structure"]["objects"] != got["structure"]["objects"]:
        bad.append("objects")
    have_m, want_m = got["structure"]["meshes"], ref["structure"]["meshes"]

    def shape(m: Mapping | None) -> dict | None:  # users change with copies: not structure
        return None if m is None else {k: v for k, v in m.items() if k != "users"}

    for name, m in want_m.items():
        if shape(have_m.get(name)) != shape(m):
            bad.append(f"meshes[{name!r}]")
    have_l, want_l = got["structure"]["links"], ref["structure"]["links"]
    for coll, holders in want_l.items():
        for name, links in holders.items():
            if have_l.get(coll, {}).get(name) != links:
                bad.append(f"links {coll}[{name!r}]")
    for (coll, name), (_, orig) in new.items():  # a permitted copy equals its original
        if coll == "meshes" and shape(have_m.get(name)) != shape(want_m.get(orig)):
            bad.append(f"copy meshes[{name!r}]")
        if orig in want_l.get(coll, {}) and have_l.get(coll, {}).get(name) != want_l[coll][orig]:
            bad.append(f"copy links {coll}[{name!r}]")
    return {"ok": not bad, "changed": bad[:MAX_LISTED]}


def _bindings(c: Candidate, ref: Mapping, got: Mapping) -> dict[str, Any]:
    ref_blocks = _blocks(ref)
    bad = []
    for b in ref["bindings"]:
        obj = b["from"][1]
        now = binding_to(got, obj, b["path"])
        if (obj, b["path"]) in c.copies:
            if now is None or now in ref_blocks:
                bad.append({"binding": [obj, b["path"]], "reference": b["to"],
                            "observed": now, "required": "a local copy"})
        elif now is None or list(now) != list(b["to"]):
            bad.append({"binding": [obj, b["path"]], "reference": b["to"], "observed": now})
    return {"ok": not bad, "changed": bad[:MAX_LISTED], "rebound": sorted(map(list, c.copies))}


def _scope(c: Candidate, ref: Mapping, got: Mapping,
           new: dict[tuple[str, str], tuple[str, str]]) -> dict[str, Any]:
    have, want = _blocks(got), _blocks(ref)
    extra = sorted(map(list, have - want - set(new)))
    missing = sorted(map(list, want - have))
    ends = {(resolve(got, e), p) for e in c.endpoints  # an effect is energy and colour
            for p in (LIGHT_PROPS if e.effect else (e.path,))}
    differ = []
    for block, orig in new.items():  # a copy equals its original but for its endpoints
        for key, value in ref["cells"].items():
            coll, name, path = parse_cell(key)
            if (coll, name) != tuple(orig) or (block, path) in ends:
                continue
            if not agree(got["cells"].get(cell_key(*block, path)), value) and \
                    got["cells"].get(cell_key(*block, path)) != value:
                differ.append(cell_key(*block, path))
    ok = not extra and not missing and not differ
    return {"ok": ok, "new": extra[:MAX_LISTED], "missing": missing[:MAX_LISTED],
            "copies": sorted([list(k), list(v)] for k, v in new.items()),
            "copy_differs": differ[:MAX_LISTED]}
