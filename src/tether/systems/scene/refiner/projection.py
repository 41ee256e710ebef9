"""Projection (the paper's Eq. 3): the light effect change between the previous delivered
state and the raw one, at full (alpha = 1) and half (alpha = 1/2) effect, compiled into
the previous delivered program by the light channel's owner rule (light.compile_owners).
"""

from __future__ import annotations

from tether.systems.scene.record import SceneRecord
from tether.systems.scene.refiner.candidate import Candidate
from tether.systems.scene.refiner.light import Tuple, compile_owners, light_of
from tether.systems.scene.refiner.spec import PROJECTION_ALPHA, agree, phi, reconstruct


def in_scope(raw: SceneRecord, previous: SceneRecord) -> list[str]:
    """The light objects projection covers: bound to light data in both the previous and
    the raw state, with an effect phi that differs between them (name order)."""
    now, before = raw.execution.state, previous.execution.state
    if not raw.execution.ok or now is None or before is None:
        return []
    out = []
    for obj in sorted({b["from"][1] for b in before["bindings"]
                       if b["path"] == "data" and b["to"][0] == "lights"}):
        old, new = light_of(before, obj), light_of(now, obj)
        if old is not None and new is not None and not agree(phi(*old[1]), phi(*new[1])):
            out.append(obj)
    return out


def build(name: str, raw: SceneRecord, previous: SceneRecord) -> Candidate | None:
    """u = phi(S-) + alpha (phi(St) - phi(S-)) per in-scope owner, into the previous program.

    None when either state is missing, the scope is empty, or a reconstruction is
    infeasible.
    """
    alpha = PROJECTION_ALPHA[name]
    now, before = raw.execution.state, previous.execution.state
    required: dict[str, Tuple] = {}
    effects: dict[str, list[float]] = {}
    for obj in in_scope(raw, previous):
        (_, (e0, c0)), (_, (e1, c1)) = light_of(before, obj), light_of(now, obj)  # type: ignore[misc]
        p0, p1 = phi(e0, c0), phi(e1, c1)
        u = [a + alpha * (b - a) for a, b in zip(p0, p1, strict=True)]
        made = reconstruct(u, e0 + alpha * (e1 - e0))
        if made is None:
            return None
        energy, color = made
        required[obj] = (energy, color or list(c0)[:3])
        effects[obj] = u
    if not required:
        return None
    return compile_owners(name, previous, required, effect=True, effects=effects)
