import bpy

twin = bpy.data.objects["Twin"]
twin.data = twin.data.copy()
twin.data.shape_keys.key_blocks["Stretch"].value = 1.0
