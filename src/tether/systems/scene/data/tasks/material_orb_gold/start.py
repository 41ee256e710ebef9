import bpy

metal = bpy.data.materials["Metal"]
metal.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.5, 0.5, 0.5, 1.0)
