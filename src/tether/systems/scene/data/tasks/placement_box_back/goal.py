import bpy

box = bpy.data.objects["Box"]
box.location = (0.0, 2.0, 0.5)
