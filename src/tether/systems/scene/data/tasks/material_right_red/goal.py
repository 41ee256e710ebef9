import bpy

right = bpy.data.objects["Right"]
red = right.active_material.copy()
right.active_material = red
red.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.8, 0.05, 0.05, 1.0)
