import bpy

bpy.data.objects["Fill"].data.color = (1.0, 1.0, 1.0)
