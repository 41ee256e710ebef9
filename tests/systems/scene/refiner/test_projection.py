"""Projection (Eq. 3) on plain-dict records: scope, arithmetic, the full-effect match."""

from __future__ import annotations

from tether.systems.scene.refiner import light, projection, spec

from .states import record


def test_projection_arithmetic_and_scope() -> None:
    prev = record()  # Fill: 100 x white; Key unchanged
    raw = record(cells={'bpy.data.lights["Fill"].energy': 200.0,
                        'bpy.data.lights["Fill"].color': [1.0, 0.5, 0.5]})
    half = projection.build("projection_half", raw, prev)
    assert half is not None and half.scope == ["Fill"]
    (end,) = half.endpoints
    assert end.effect and end.value == [150.0, 100.0, 100.0]  # phi(S-) + (phi(St) - phi(S-))/2
    assert half.patch.startswith("import bpy\nbpy.data.lights['Fill'].energy = 150.0\n")
    full = projection.build("projection_full", raw, prev)
    assert full is not None and full.endpoints[0].value == spec.phi(200.0, [1.0, 0.5, 0.5])
    assert light.realized(full, raw)  # u_1 = phi(St): the raw record matches by construction
    assert projection.build("projection_half", prev, prev) is None  # empty scope
