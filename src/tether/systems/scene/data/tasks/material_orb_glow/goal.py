import bpy

metal = bpy.data.materials["Metal"]
bsdf = metal.node_tree.nodes["Principled BSDF"].inputs
bsdf["Emission Color"].default_value = (1.0, 0.5, 0.1, 1.0)
bsdf["Emission Strength"].default_value = 5.0
