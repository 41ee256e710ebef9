import bpy

metal = bpy.data.materials["Metal"]
metal.node_tree.nodes["Principled BSDF"].inputs["Emission Strength"].default_value = 0.0
