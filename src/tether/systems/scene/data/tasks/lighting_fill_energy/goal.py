import bpy

bpy.data.objects["Fill"].data.energy = 400.0
