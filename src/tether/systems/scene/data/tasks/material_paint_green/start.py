import bpy

paint = bpy.data.materials["Paint"]
paint.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.1, 0.2, 0.8, 1.0)
