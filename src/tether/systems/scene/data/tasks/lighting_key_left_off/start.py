import bpy

bpy.data.objects["KeyL"].data.energy = 200.0
