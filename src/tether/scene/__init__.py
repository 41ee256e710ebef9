"""Scene programs (VETR, part 1): Blender execution, write traces, state, metrics."""
