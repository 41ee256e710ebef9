import bpy

cone = bpy.data.objects["Cone"]
cone.rotation_euler = (0.0, 0.0, 0.0)
