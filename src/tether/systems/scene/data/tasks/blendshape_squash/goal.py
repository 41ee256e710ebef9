import bpy

keys = bpy.data.objects["Face"].data.shape_keys.key_blocks
keys["Squash"].value = 0.8
