import bpy

world = bpy.data.worlds["World"]
world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.02
