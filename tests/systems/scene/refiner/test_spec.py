"""tether's choices where the paper is open: agreement, phi and the light inverse."""

from __future__ import annotations

from tether.systems.scene.refiner import spec


def test_agreement_tolerance_and_unknowns() -> None:
    assert spec.agree(1.0, 1.0 + 5e-6) and not spec.agree(1.0, 1.0 + 5e-5)
    assert spec.agree(1000.0, 1000.0 + 0.01) and not spec.agree(1000.0, 1000.1)
    assert spec.agree(0.30000001192092896, 0.3)  # a float32 readback agrees with its text
    assert spec.agree([1, 2.0], (1.0, 2)) and not spec.agree([1.0], [1.0, 2.0])
    assert not spec.agree(None, None) and not spec.agree(None, 0.0)  # unknown: never
    assert spec.agree(True, True) and not spec.agree(True, 1) and not spec.agree(True, False)
    assert not spec.agree(float("nan"), float("nan"))


def test_phi_is_energy_times_colour() -> None:
    assert spec.phi(2.0, [1.0, 0.5, 0.25]) == [2.0, 1.0, 0.5]


def test_light_inverse_keeps_the_interpolated_energy() -> None:
    assert spec.reconstruct([150.0, 150.0, 150.0], 150.0) == (150.0, [1.0, 1.0, 1.0])
    energy, color = spec.reconstruct([150.0, 100.0, 100.0], 150.0)
    assert energy == 150.0 and spec.agree(color, [1.0, 2 / 3, 2 / 3])


def test_light_inverse_scales_a_colour_above_one_into_energy() -> None:
    energy, color = spec.reconstruct([200.0, 50.0, 50.0], 100.0)  # c would be (2, .5, .5)
    assert energy == 200.0 and color == [1.0, 0.25, 0.25]


def test_light_inverse_at_zero_energy() -> None:
    assert spec.reconstruct([0.0, 0.0, 0.0], 0.0) == (0.0, [])  # the reference colour kept
    assert spec.reconstruct([1.0, 0.0, 0.0], 0.0) is None  # infeasible
    assert spec.reconstruct([-1.0, 0.0, 0.0], 1.0) is None


def test_the_cap_and_the_order_are_the_seeds() -> None:
    assert spec.MAX_EXTRA_EXECUTIONS == 6
    assert spec.ALTERNATIVES[:2] == ("recovery_current", "recovery_initial")
    assert spec.ALTERNATIVES[-2:] == ("projection_full", "projection_half")
