import bpy

keys = bpy.data.objects["Face"].data.shape_keys.key_blocks
keys["Stretch"].value = 0.0
