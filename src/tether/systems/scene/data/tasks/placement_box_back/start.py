import bpy

box = bpy.data.objects["Box"]
box.location = (0.0, 0.0, 0.5)
