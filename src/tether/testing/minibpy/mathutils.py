"""mathutils of the minibpy test double (what `import mathutils` gives on minibpy)."""

from tether.testing.minibpy.values import Color, Euler, Vector

__all__ = ["Color", "Euler", "Vector"]
