import bpy

box = bpy.data.objects["Box"]
box.scale = (1.0, 1.0, 2.0)
box.location.z = 1.0
