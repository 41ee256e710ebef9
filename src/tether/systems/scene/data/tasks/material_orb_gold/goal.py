import bpy

metal = bpy.data.materials["Metal"]
metal.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (1.0, 0.75, 0.2, 1.0)
