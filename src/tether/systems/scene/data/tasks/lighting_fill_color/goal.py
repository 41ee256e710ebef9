import bpy

bpy.data.objects["Fill"].data.color = (1.0, 0.4, 0.1)
