"""Scene programs (VETR): Blender execution, write traces, state, metrics."""
