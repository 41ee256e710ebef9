import bpy

twin = bpy.data.objects["Twin"]
twin.data.shape_keys.key_blocks["Stretch"].value = 0.0
