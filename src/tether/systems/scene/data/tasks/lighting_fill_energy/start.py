import bpy

bpy.data.objects["Fill"].data.energy = 100.0
